/**
 * Fenced code blocks, as CommonMark writes them at the top level: an opening line of up to three
 * spaces and then three or more backticks or tildes (with an optional info string, which for
 * backtick fences holds no backtick); the block closes at a line of up to three spaces, at least as
 * many of the same fence character and nothing but spaces or tabs; without such a line it runs to
 * the end of the text. Fences inside block quotes or list items are not recognised (tool output
 * rarely nests them); the passes that use this are conservative about what they do not recognise.
 */
export interface FencedBlock {
  /** Offset of the opening fence line's first character (a line start). */
  start: number
  /** Offset just after the opening fence line's line break: where the body begins. */
  bodyStart: number
  /** Offset of the closing fence line's first character; the body is [bodyStart, bodyEnd). */
  bodyEnd: number
  /** Offset just after the closing fence line, before its line break (text.length when unclosed). */
  end: number
  /** The info string, trimmed (`json`, `ts title="x"`, or ''). */
  info: string
  closed: boolean
}

/** Whether the text may hold a fence at all: the cheap test to run first. */
export function mayHoldFences(text: string): boolean {
  return text.includes('```') || text.includes('~~~')
}

/** A fence line's fence and what follows it (a CR ending the line is not included). */
const FENCE_LINE = /^ {0,3}(`{3,}|~{3,})(.*?)\r?$/s

export function findFencedBlocks(text: string): FencedBlock[] {
  const blocks: FencedBlock[] = []
  let open: { start: number; bodyStart: number; fence: string; info: string } | undefined
  for (const line of fenceLines(text)) {
    const match = FENCE_LINE.exec(text.slice(line.start, line.end))
    if (match === null) continue
    const fence = match[1] as string
    const rest = match[2] as string
    const contentEnd = text.charCodeAt(line.end - 1) === 0x0d ? line.end - 1 : line.end
    if (open === undefined) {
      if (fence.startsWith('`') && rest.includes('`')) continue
      open = { start: line.start, bodyStart: Math.min(line.end + 1, text.length), fence, info: rest.trim() }
    } else if (fence[0] === open.fence[0] && fence.length >= open.fence.length && /^[ \t]*$/.test(rest)) {
      blocks.push({ start: open.start, bodyStart: open.bodyStart, bodyEnd: line.start, end: contentEnd, info: open.info, closed: true })
      open = undefined
    }
  }
  if (open !== undefined) {
    blocks.push({ start: open.start, bodyStart: open.bodyStart, bodyEnd: text.length, end: text.length, info: open.info, closed: false })
  }
  return blocks
}

/**
 * The lines (start, and end before the LF) that hold ``` or ~~~ after at most three spaces. Found
 * with indexOf, so the text between fences is not walked line by line.
 */
function* fenceLines(text: string): Generator<{ start: number; end: number }> {
  let from = 0
  let backticks = -2
  let tildes = -2
  while (from < text.length) {
    // Each marker's next position, searched again only once the scan has passed it.
    if (backticks !== -1 && backticks < from) backticks = text.indexOf('```', from)
    if (tildes !== -1 && tildes < from) tildes = text.indexOf('~~~', from)
    const at = backticks === -1 ? tildes : tildes === -1 ? backticks : Math.min(backticks, tildes)
    if (at === -1) return
    const start = text.lastIndexOf('\n', at - 1) + 1
    const newline = text.indexOf('\n', at)
    const end = newline === -1 ? text.length : newline
    if (at - start <= 3 && isSpaces(text, start, at)) yield { start, end }
    from = end + 1
  }
}

function isSpaces(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) !== 0x20) return false
  return true
}
