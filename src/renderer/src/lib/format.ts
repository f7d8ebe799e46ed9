// How numbers read in the UI. Pure.

export function formatMs(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms)) return '—'
  if (ms < 10) return `${ms.toFixed(2)} ms`
  if (ms < 1_000) return `${ms.toFixed(1)} ms`
  return `${(ms / 1_000).toFixed(2)} s`
}

/** Δt: always in ms with one decimal, so a column of them lines up. */
export function formatDelta(ms: number): string {
  return `+${ms.toFixed(1)}`
}

export function formatRate(perSecond: number | null): string {
  return perSecond === null ? '—' : `${perSecond.toFixed(1)} tok/s`
}

export function formatCost(usd: number | null): string {
  if (usd === null) return '—'
  return usd < 0.01 ? `$${usd.toFixed(6)}` : `$${usd.toFixed(4)}`
}

export function formatClock(iso: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  return date.toLocaleTimeString(undefined, { hour12: false }) + `.${String(date.getMilliseconds()).padStart(3, '0')}`
}

/** A raw frame split into text and its line ends, so a row can show every CR and LF it has. */
export function splitLineEnds(raw: string): Array<{ text: string } | { eol: 'CR' | 'LF' }> {
  const parts: Array<{ text: string } | { eol: 'CR' | 'LF' }> = []
  let start = 0
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]
    if (ch !== '\n' && ch !== '\r') continue
    if (i > start) parts.push({ text: raw.slice(start, i) })
    parts.push({ eol: ch === '\n' ? 'LF' : 'CR' })
    start = i + 1
  }
  if (start < raw.length) parts.push({ text: raw.slice(start) })
  return parts
}
