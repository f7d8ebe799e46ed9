import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, CR, LF, OPEN_BRACE, OPEN_BRACKET, QUOTE, SPACE, TAB } from './json-char-codes'

/** Where one member's value is in the text: `text.slice(start, end)` is its JSON. */
export interface Span {
  readonly start: number
  readonly end: number
}

/**
 * Where each top-level member's value is in `text`, JSON that `JSON.parse` has accepted and whose
 * value is an object: a map from member name to the span of its value's text. A name written
 * twice maps to its last value, as `JSON.parse` keeps the last. Undefined when the text is not an
 * object, or when a name holds an escape (`\u0061`): its text is then not the name `JSON.parse`
 * reads, so no span is given rather than a wrong one.
 *
 * One pass over the top level that leaps over strings with `indexOf` (native), as the depth check
 * does; nested values are skipped bracket by bracket, their strings leapt over the same way.
 */
export function topLevelMembers(text: string): Map<string, Span> | undefined {
  let at = skipSpace(text, 0)
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined
  const members = new Map<string, Span>()
  at = skipSpace(text, at + 1)
  if (text.charCodeAt(at) === CLOSE_BRACE) return members
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return undefined
    const close = closingQuote(text, at)
    if (close === -1) return undefined
    const name = text.slice(at + 1, close)
    if (name.includes('\\')) return undefined
    at = skipSpace(text, close + 1)
    if (text.charCodeAt(at) !== COLON) return undefined
    const start = skipSpace(text, at + 1)
    const end = valueEnd(text, start)
    if (end === -1) return undefined
    members.set(name, { start, end })
    at = skipSpace(text, end)
    const next = text.charCodeAt(at)
    if (next === CLOSE_BRACE) return members
    if (next !== COMMA) return undefined
    at = skipSpace(text, at + 1)
  }
}

/** The index just past the value that starts at `start`, or -1. */
function valueEnd(text: string, start: number): number {
  const first = text.charCodeAt(start)
  if (first === QUOTE) {
    const close = closingQuote(text, start)
    return close === -1 ? -1 : close + 1
  }
  if (first === OPEN_BRACE || first === OPEN_BRACKET) {
    let depth = 0
    for (let i = start; i < text.length; i++) {
      const c = text.charCodeAt(i)
      if (c === QUOTE) {
        i = closingQuote(text, i)
        if (i === -1) return -1
      } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
        depth++
      } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && --depth === 0) {
        return i + 1
      }
    }
    return -1
  }
  // A number, true, false or null: up to the next separator.
  let i = start
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === COMMA || c === CLOSE_BRACE || c === CLOSE_BRACKET || isSpace(c)) break
    i++
  }
  return i === start ? -1 : i
}

const isSpace = (c: number): boolean => c === SPACE || c === LF || c === CR || c === TAB

function skipSpace(text: string, at: number): number {
  while (at < text.length && isSpace(text.charCodeAt(at))) at++
  return at
}

/** The index of the quote that closes the string opened at `open` (one not escaped), or -1. */
export function closingQuote(text: string, open: number): number {
  let at = open
  for (;;) {
    at = text.indexOf('"', at + 1)
    if (at === -1) return -1
    let backslashes = 0
    while (text.charCodeAt(at - 1 - backslashes) === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return at
  }
}
