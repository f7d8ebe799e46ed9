// Line diffs for the inspector: the request "as received" against "as the model saw it", and
// one prompt of a session against the previous one. Plain longest-common-subsequence over the
// lines that differ, after the common head and tail are set aside (they are most of a prompt).

export type DiffOp = 'same' | 'removed' | 'added'

export interface DiffLine {
  op: DiffOp
  text: string
}

/** A run of unchanged lines left out of the view, standing for `count` lines. */
export interface DiffGap {
  op: 'gap'
  count: number
}

/** Past this many line pairs in the changed middle, it is shown as removed-then-added, undiffed. */
const MAX_CELLS = 4_000_000

function lcsDiff(a: readonly string[], b: readonly string[]): DiffLine[] {
  const n = a.length
  const m = b.length
  if (n * m > MAX_CELLS) return [...a.map((text) => ({ op: 'removed' as const, text })), ...b.map((text) => ({ op: 'added' as const, text }))]
  // lengths[i][j]: the LCS length of a[i..] and b[j..], in one flat array.
  const width = m + 1
  const lengths = new Uint32Array((n + 1) * width)
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lengths[i * width + j] = a[i] === b[j] ? (lengths[(i + 1) * width + j + 1] ?? 0) + 1 : Math.max(lengths[(i + 1) * width + j] ?? 0, lengths[i * width + j + 1] ?? 0)
    }
  }
  const out: DiffLine[] = []
  let i = 0
  let j = 0
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: 'same', text: a[i] ?? '' })
      i++
      j++
    } else if ((lengths[(i + 1) * width + j] ?? 0) >= (lengths[i * width + j + 1] ?? 0)) {
      out.push({ op: 'removed', text: a[i++] ?? '' })
    } else {
      out.push({ op: 'added', text: b[j++] ?? '' })
    }
  }
  while (i < n) out.push({ op: 'removed', text: a[i++] ?? '' })
  while (j < m) out.push({ op: 'added', text: b[j++] ?? '' })
  return out
}

/** The lines of `before` and `after`, each marked same, removed or added. */
export function diffLines(before: string, after: string): DiffLine[] {
  const a = before.split('\n')
  const b = after.split('\n')
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const same = (text: string): DiffLine => ({ op: 'same', text })
  return [...a.slice(0, head).map(same), ...lcsDiff(a.slice(head, a.length - tail), b.slice(head, b.length - tail)), ...a.slice(a.length - tail).map(same)]
}

/** Whether anything differs. */
export const hasChanges = (lines: readonly DiffLine[]): boolean => lines.some((line) => line.op !== 'same')

/** Unchanged runs longer than 2 × `context` lines folded into a gap, keeping `context` lines around each change. */
export function foldUnchanged(lines: readonly DiffLine[], context = 3): Array<DiffLine | DiffGap> {
  const out: Array<DiffLine | DiffGap> = []
  let i = 0
  while (i < lines.length) {
    const line = lines[i]
    if (line !== undefined && line.op !== 'same') {
      out.push(line)
      i++
      continue
    }
    let end = i
    while (end < lines.length && lines[end]?.op === 'same') end++
    const keepHead = i === 0 ? 0 : context
    const keepTail = end === lines.length ? 0 : context
    if (end - i > keepHead + keepTail + 1) {
      out.push(...lines.slice(i, i + keepHead))
      out.push({ op: 'gap', count: end - i - keepHead - keepTail })
      out.push(...lines.slice(end - keepTail, end))
    } else {
      out.push(...lines.slice(i, end))
    }
    i = end
  }
  return out
}

/** JSON text re-indented (so a diff compares content, not spacing); other text as it is. */
export function prettyJsonText(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}
