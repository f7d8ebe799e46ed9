import { BoundedStringMap } from '../bounded-string-map'

/**
 * Strings shorter than this are quoted by JSON.stringify every time. Finding a string in a Map
 * hashes it, and V8 hashes strings of up to 16,383 characters in full (~1.4 µs per KB here, about
 * what quoting costs); longer ones it hashes by their length alone, so only for them is a lookup
 * (the hash, then one comparison of the text) far cheaper than quoting.
 */
export const SHORTEST_KEPT_STRING = 16_384
/** What the cache may hold, in UTF-16 code units of texts and their JSON (~2 bytes each): about 16 MB. */
export const DEFAULT_JSON_TEXT_CACHE_CHARS = 8_000_000
/** How deep the walk goes (body → messages → message → its fields); deeper values are serialized natively. */
const WALKED_DEPTH = 3

/**
 * `JSON.stringify` for request data — what `JSON.parse` and the request schema make: plain objects,
 * arrays, strings, numbers, booleans, null, and properties that are absent (undefined) — giving
 * exactly its output, but remembering the JSON text of long strings.
 *
 * Why: quoting a string (escaping it) is the costliest pass over a prompt on the request path,
 * ~3 µs per KB on Node 20 (three times `JSON.parse`), and an agent sends the same system prompt
 * and history on every turn. A remembered text is found by the string itself (a hash and one
 * comparison, both native), so a prompt seen before costs only its new part to quote.
 *
 * The walk mirrors `JSON.stringify`: keys in own-enumerable order, properties that are undefined,
 * functions or symbols left out, such array elements written `null`. Below `WALKED_DEPTH`, for an
 * object below the top without a long string of its own, and for anything not a plain object or
 * array, `JSON.stringify` itself serializes the value.
 */
export class JsonTextCache {
  private readonly quoted: BoundedStringMap<string>

  constructor(maxChars: number = DEFAULT_JSON_TEXT_CACHE_CHARS) {
    this.quoted = new BoundedStringMap(maxChars)
  }

  /** `JSON.stringify(value)` for plain data (see above). */
  stringify(value: unknown): string {
    return this.write(value, 0)
  }

  /** `JSON.stringify(text)`: remembered when the text is long. */
  quote(text: string): string {
    if (text.length < SHORTEST_KEPT_STRING) return JSON.stringify(text)
    const known = this.quoted.get(text)
    if (known !== undefined) return known
    const json = JSON.stringify(text)
    this.quoted.set(text, json, json.length)
    return json
  }

  /** How many texts and characters it holds. */
  get size(): { entries: number; chars: number } {
    return this.quoted.size
  }

  private write(value: unknown, depth: number): string {
    if (typeof value === 'string') return this.quote(value)
    if (depth >= WALKED_DEPTH || typeof value !== 'object' || value === null || !isPlain(value)) return JSON.stringify(value)
    if (Array.isArray(value)) {
      // Runs of items without a long string (most messages of a conversation) go to JSON.stringify
      // together: one native call per run rather than one per item.
      let out = '['
      let i = 0
      while (i < value.length) {
        if (out.length > 1) out += ','
        const item: unknown = value[i]
        if (holdsLong(item)) {
          out += this.write(item, depth + 1)
          i++
          continue
        }
        let end = i + 1
        while (end < value.length && !holdsLong(value[end])) end++
        out += JSON.stringify(i === 0 && end === value.length ? value : value.slice(i, end)).slice(1, -1)
        i = end
      }
      return out + ']'
    }
    const keys = Object.keys(value)
    // An object below the top with no long string of its own (a short message) costs less natively.
    if (depth > 0 && !holdsLong(value)) return JSON.stringify(value)
    let out = '{'
    let first = true
    for (const key of keys) {
      const item = (value as Record<string, unknown>)[key]
      if (omitted(item)) continue
      out += (first ? '' : ',') + JSON.stringify(key) + ':' + this.write(item, depth + 1)
      first = false
    }
    return out + '}'
  }
}

const isLong = (value: unknown) => typeof value === 'string' && value.length >= SHORTEST_KEPT_STRING

/** A long string, or a plain object with a long string among its own values: worth walking into. */
function holdsLong(value: unknown): boolean {
  if (isLong(value)) return true
  if (typeof value !== 'object' || value === null || Array.isArray(value) || !isPlain(value)) return false
  for (const key in value) if (isLong((value as Record<string, unknown>)[key])) return true
  return false
}

/** What JSON.stringify leaves out of objects (and writes as null in arrays). */
const omitted = (value: unknown) => value === undefined || typeof value === 'function' || typeof value === 'symbol'

/** An array, or an object of Object's (or no) prototype without a toJSON: walked as JSON.stringify walks it. */
function isPlain(value: object): boolean {
  if (Array.isArray(value)) return true
  const proto: unknown = Object.getPrototypeOf(value)
  return (proto === Object.prototype || proto === null) && typeof (value as { toJSON?: unknown }).toJSON !== 'function'
}

/**
 * The JSON text of the bodies sent to model servers, every form's, with the quoted form of long
 * strings remembered: a conversation's system prompt and history are sent again on every turn, and
 * quoting them was the costliest pass over the prompt on the request path (docs/benchmark.md).
 * One per process.
 */
export const upstreamJson = new JsonTextCache()
