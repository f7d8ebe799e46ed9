/**
 * `json-compact`: a text that is, as a whole, a JSON object or array loses the whitespace outside
 * its strings. Every token — every string, number and literal — is kept byte for byte, so big
 * integers, `1.0`, `1e5` and escapes such as `\u00e9` stay exactly as sent. Nothing is ever
 * re-serialized.
 *
 * Why this is lossless: the scan below removes a run of JSON whitespace (space, tab, LF, CR) only
 * outside strings and only where at least one of its neighbours is a structural character
 * (`{ } [ ] , :`), a string's quote, or the start/end of the text — the only places JSON allows
 * whitespace — and the result is accepted only if `JSON.parse` accepts it. Inserting whitespace
 * back between tokens cannot change what a JSON parser reads, so the input was valid JSON with
 * the same value. (A run between two other characters, as in `[1 2]` or `tru e`, makes the whole
 * text invalid JSON; removing it would join two tokens, so the text is left alone.)
 */

import { BACKSLASH, CLOSE_BRACE, CLOSE_BRACKET, COLON, COMMA, CR, LF, OPEN_BRACE, OPEN_BRACKET, QUOTE, SPACE, TAB } from '../http/json-char-codes'

export function isJsonWhitespace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB
}

/** A character next to which JSON allows whitespace: structural, or a string's quote. */
function isTokenBoundary(code: number): boolean {
  return (
    code === QUOTE ||
    code === COMMA ||
    code === COLON ||
    code === OPEN_BRACE ||
    code === CLOSE_BRACE ||
    code === OPEN_BRACKET ||
    code === CLOSE_BRACKET
  )
}

/** Index of the first character that is not JSON whitespace (text.length if none). */
function skipWhitespace(text: string, from: number): number {
  let i = from
  while (i < text.length && isJsonWhitespace(text.charCodeAt(i))) i++
  return i
}

/**
 * Given `from` just after a string's opening quote, the index just after its closing quote, or -1
 * when the string never closes. A quote closes the string unless an odd number of backslashes
 * precede it (JSON's `\"`); `indexOf` keeps long strings cheap.
 */
export function endOfJsonString(text: string, from: number): number {
  let quote = text.indexOf('"', from)
  while (quote !== -1) {
    let backslashes = 0
    for (let b = quote - 1; b >= from && text.charCodeAt(b) === BACKSLASH; b--) backslashes++
    if (backslashes % 2 === 0) return quote + 1
    quote = text.indexOf('"', quote + 1)
  }
  return -1
}

/**
 * The text with its insignificant whitespace removed, if it is (after optional whitespace) a JSON
 * object or array that `JSON.parse` accepts; otherwise the very same string. Scalars (`42`,
 * `"text"`, `true`) are returned unchanged: they can only carry leading/trailing whitespace.
 */
export function compactJson(text: string): string {
  const n = text.length
  const start = skipWhitespace(text, 0)
  const first = text.charCodeAt(start)
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET) return text

  let out = ''
  let removed = start > 0
  let segmentStart = start
  let i = start
  while (i < n) {
    const code = text.charCodeAt(i)
    if (code === QUOTE) {
      i = endOfJsonString(text, i + 1)
      if (i === -1) return text
    } else if (isJsonWhitespace(code)) {
      // `i > start` here (text[start] is a bracket), and text[i - 1] is not whitespace.
      const end = skipWhitespace(text, i + 1)
      if (end < n && !isTokenBoundary(text.charCodeAt(i - 1)) && !isTokenBoundary(text.charCodeAt(end))) return text
      out += text.slice(segmentStart, i)
      removed = true
      segmentStart = end
      i = end
    } else {
      i++
    }
  }
  if (!removed) return text // already compact: no need to validate
  out += text.slice(segmentStart, n)
  try {
    JSON.parse(out)
  } catch {
    return text
  }
  return out
}

/** Whether the whole text is JSON that could hold a string (object, array or string). */
export function isJsonDocument(text: string): boolean {
  const first = text.charCodeAt(skipWhitespace(text, 0))
  if (first !== OPEN_BRACE && first !== OPEN_BRACKET && first !== QUOTE) return false
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}
