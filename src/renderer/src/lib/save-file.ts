/** Offers `contents` as a file download (a browser's download bar; Electron's save dialog). */
export function saveFile(contents: Blob | string, name: string, type = 'text/plain'): void {
  const blob = typeof contents === 'string' ? new Blob([contents], { type }) : contents
  const url = URL.createObjectURL(blob)
  const link = document.createElement('a')
  link.href = url
  link.download = name
  link.click()
  setTimeout(() => URL.revokeObjectURL(url), 1_000)
}
