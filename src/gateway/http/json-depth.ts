import { CLOSE_BRACE, CLOSE_BRACKET, OPEN_BRACE, OPEN_BRACKET, QUOTE } from './json-char-codes'
import { closingQuote } from './json-members'

/**
 * How deep JSON may nest, in any body the gateway reads and in tool-call `arguments` (JSON in a
 * string). Real requests nest a few levels (a tool's JSON Schema a few more); deeper nesting only
 * serves to overflow the recursion of whatever walks the value later (the chat template's JSON
 * dump, `JSON.stringify` of a forwarded body), so it is refused before parsing.
 */
export const MAX_JSON_DEPTH = 64


/**
 * Whether `text` opens more than `limit` objects/arrays inside one another, counting brackets
 * outside strings. One linear pass that leaps over string contents with `indexOf` (native), so an
 * 8 MB prompt in one string costs about a millisecond. Text that is not JSON gives some answer;
 * `JSON.parse` reports what is wrong with it.
 */
export function jsonNestsDeeperThan(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      i = closingQuote(text, i)
      if (i === -1) return false
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--
    }
  }
  return false
}
