import { isJsonDocument } from './json-compact'
import { findFencedBlocks, mayHoldFences } from './fences'

/** Two or more spaces with a non-whitespace character on each side, on one line. */
const INNER_SPACE_RUN = /(?<=\S) {2,}(?=\S)/g

/**
 * `collapse-spaces` (opt-in): runs of two or more spaces between two non-whitespace characters on
 * a line become one space — the padding of aligned columns in `ls -l`, `ps`, `kubectl get` or
 * `git log --format` output. Leading indentation, trailing spaces, tabs, line breaks and
 * everything inside fenced code blocks (closed or not) stay as they are. A text that is JSON as a
 * whole is left alone: its strings are data, and `json-compact` handles its layout.
 *
 * Not lossless in general, hence opt-in: alignment is layout a reader may use. A column with an
 * empty cell loses its place (`foo          Running` → `foo Running`: which column is empty?),
 * and a value with two spaces inside it (`"a  b"` in prose or a quoted string) changes.
 */
export function collapseSpaces(text: string): string {
  if (!text.includes('  ')) return text
  if (isJsonDocument(text)) return text
  if (!mayHoldFences(text)) return text.replace(INNER_SPACE_RUN, ' ')
  let out = ''
  let copiedUpTo = 0
  for (const block of findFencedBlocks(text)) {
    // Outside a block, the text between two blocks starts and ends at a line boundary, so the
    // lookarounds never need a character from the other side.
    out += text.slice(copiedUpTo, block.start).replace(INNER_SPACE_RUN, ' ') + text.slice(block.start, block.end)
    copiedUpTo = block.end
  }
  return out + text.slice(copiedUpTo).replace(INNER_SPACE_RUN, ' ')
}
