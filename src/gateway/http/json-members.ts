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
 * does; nested values are skipped bracket by bracket, their strings leapt over the same way. The
 * members named in `split` whose values are arrays get their elements' spans in `elements`, found
 * in the same pass, and `nesting.deepest` becomes how deep the text nests (the object itself is 1).
 */
export function topLevelMembers(text: string, split?: ReadonlySet<string>, elements?: Map<string, Span[]>, nesting: Nesting = { deepest: 0 }): Map<string, Span> | undefined {
  let at = skipSpace(text, 0)
  if (text.charCodeAt(at) !== OPEN_BRACE) return undefined
  const members = new Map<string, Span>()
  nesting.deepest = Math.max(nesting.deepest, 1)
  at = skipSpace(text, at + 1)
  if (text.charCodeAt(at) === CLOSE_BRACE) return members
  return membersFrom(text, at, members, split, elements, nesting)
}

/**
 * The rest of `topLevelMembers`' scan for a text that continues a known beginning: `text` starts
 * right after an element of the top-level array member `name`, or, `atOpening`, right after that
 * array's opening bracket (whatever follows: more elements, the array's end, more members). The
 * spans are of `text`: `elements` gets the array's further elements under `name`, and those of
 * other arrays named in `split`, as `topLevelMembers` finds them; the members after the array are
 * returned with the array's end (`arrayEnd`). Undefined when the text does not go on as such a
 * body would, or when a name holds an escape.
 */
export function membersAfterElement(
  text: string,
  name: string,
  split: ReadonlySet<string>,
  elements: Map<string, Span[]>,
  nesting: Nesting,
  atOpening = false,
): { arrayEnd: number; members: Map<string, Span> } | undefined {
  const rest: Span[] = []
  let at = skipSpace(text, 0)
  for (let first = atOpening; ; first = false) {
    const next = text.charCodeAt(at)
    if (next === CLOSE_BRACKET) break
    // Elements after the first follow a comma.
    if (!first) {
      if (next !== COMMA) return undefined
      at = skipSpace(text, at + 1)
    }
    const end = valueEnd(text, at, 2, nesting)
    if (end === -1) return undefined
    rest.push({ start: at, end })
    at = skipSpace(text, end)
  }
  elements.set(name, rest)
  const arrayEnd = at + 1
  const members = new Map<string, Span>()
  at = skipSpace(text, arrayEnd)
  const next = text.charCodeAt(at)
  if (next === CLOSE_BRACE) return { arrayEnd, members }
  if (next !== COMMA) return undefined
  const found = membersFrom(text, skipSpace(text, at + 1), members, split, elements, nesting)
  return found === undefined ? undefined : { arrayEnd, members: found }
}

/** The members from `at` (where a member's name opens) to the object's end, added to `members`. */
function membersFrom(
  text: string,
  at: number,
  members: Map<string, Span>,
  split: ReadonlySet<string> | undefined,
  elements: Map<string, Span[]> | undefined,
  nesting: Nesting,
): Map<string, Span> | undefined {
  for (;;) {
    if (text.charCodeAt(at) !== QUOTE) return undefined
    const close = closingQuote(text, at)
    if (close === -1) return undefined
    const name = text.slice(at + 1, close)
    if (name.includes('\\')) return undefined
    at = skipSpace(text, close + 1)
    if (text.charCodeAt(at) !== COLON) return undefined
    const start = skipSpace(text, at + 1)
    let end: number
    const array = split?.has(name) === true ? arrayElements(text, start, 1, nesting) : undefined
    if (array !== undefined) {
      end = array.end
      elements?.set(name, array.elements)
    } else {
      end = valueEnd(text, start, 1, nesting)
      // A value written twice is its last: an earlier array's elements are not this value's.
      elements?.delete(name)
    }
    if (end === -1) return undefined
    members.set(name, { start, end })
    at = skipSpace(text, end)
    const next = text.charCodeAt(at)
    if (next === CLOSE_BRACE) return members
    if (next !== COMMA) return undefined
    at = skipSpace(text, at + 1)
  }
}

/**
 * Where each element of the array whose text starts at `start` is (one span per element, without
 * the whitespace around it), and the index just past the array. Undefined when `start` does not
 * open an array or the text is cut short. One pass that leaps over strings, as `valueEnd` does.
 */
export function arrayElements(text: string, start: number, outside = 0, nesting: Nesting = { deepest: 0 }): { elements: Span[]; end: number } | undefined {
  if (text.charCodeAt(start) !== OPEN_BRACKET) return undefined
  const elements: Span[] = []
  nesting.deepest = Math.max(nesting.deepest, outside + 1)
  let at = skipSpace(text, start + 1)
  if (text.charCodeAt(at) === CLOSE_BRACKET) return { elements, end: at + 1 }
  for (;;) {
    const end = valueEnd(text, at, outside + 1, nesting)
    if (end === -1) return undefined
    elements.push({ start: at, end })
    at = skipSpace(text, end)
    const next = text.charCodeAt(at)
    if (next === CLOSE_BRACKET) return { elements, end: at + 1 }
    if (next !== COMMA) return undefined
    at = skipSpace(text, at + 1)
  }
}

/** How deep a scan found the text to nest: arrays and objects inside one another. */
export interface Nesting {
  deepest: number
}

/**
 * The index just past the value that starts at `start`, or -1; the value sits inside `outside`
 * arrays and objects, and `nesting` keeps the deepest level met.
 */
function valueEnd(text: string, start: number, outside = 0, nesting: Nesting = { deepest: 0 }): number {
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
        if (++depth + outside > nesting.deepest) nesting.deepest = depth + outside
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
