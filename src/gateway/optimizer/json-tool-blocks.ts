import { compactJson } from './json-compact'
import { findFencedBlocks, mayHoldFences } from './fences'

/**
 * `json-tool-blocks`: in a text (a tool result), the body of each closed fenced block labelled
 * `json` (the info string's first word, any case: ```` ```json ````, ```` ```JSON title=x ````) is
 * compacted exactly as `json-compact` compacts a whole text, if the body is a JSON object or array.
 * The fence lines and everything outside the blocks are untouched; the body keeps the line break
 * before its closing fence, so the block stays a block.
 *
 * Unlabelled blocks and blocks labelled otherwise are left alone, even when their body parses: the
 * label is the tool's statement that the block is JSON data, and only those blocks change. An
 * unclosed block is left alone too.
 *
 * Returns the new text and how many blocks changed.
 */
export function compactJsonBlocks(text: string): { text: string; changed: number } {
  if (!mayHoldFences(text)) return { text, changed: 0 }
  let out = ''
  let copiedUpTo = 0
  let changed = 0
  for (const block of findFencedBlocks(text)) {
    if (!block.closed || !isJsonLabel(block.info) || block.bodyEnd <= block.bodyStart) continue
    const body = text.slice(block.bodyStart, block.bodyEnd)
    const compact = compactJson(body)
    if (compact === body) continue
    // The body ends with the line break before the closing fence (LF or CRLF); keep it.
    const lineBreak = body.endsWith('\r\n') ? '\r\n' : '\n'
    const replacement = compact + lineBreak
    if (replacement === body) continue
    out += text.slice(copiedUpTo, block.bodyStart) + replacement
    copiedUpTo = block.bodyEnd
    changed++
  }
  if (changed === 0) return { text, changed: 0 }
  return { text: out + text.slice(copiedUpTo), changed }
}

function isJsonLabel(info: string): boolean {
  if (info.length < 4) return false
  const word = info.split(/[ \t]/, 1)[0] ?? ''
  return word.toLowerCase() === 'json'
}
