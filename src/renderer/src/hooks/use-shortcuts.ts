import { useEffect, useRef } from 'react'

export interface Shortcuts {
  /** Ctrl+Enter (⌘+Enter on macOS). */
  send?: (() => void) | undefined
  /** Escape, or Ctrl+. (⌘+.). */
  stop?: (() => void) | undefined
}

/** Window-wide keyboard shortcuts for the playground. */
export function useShortcuts(shortcuts: Shortcuts): void {
  const latest = useRef(shortcuts)
  useEffect(() => {
    latest.current = shortcuts
  })
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const mod = event.ctrlKey || event.metaKey
      if (mod && event.key === 'Enter' && latest.current.send !== undefined) {
        event.preventDefault()
        latest.current.send()
      } else if ((event.key === 'Escape' || (mod && event.key === '.')) && latest.current.stop !== undefined) {
        event.preventDefault()
        latest.current.stop()
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])
}
