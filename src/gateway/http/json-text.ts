import { frozenThroughout } from '../../shared/api/element-results'
import { isFrozenObject, KeptByLastItem } from '../../shared/api/kept-by-last-item'
import { BoundedStringMap } from '../bounded-string-map'
import { JsonChunkWriter, type WrittenSegment } from './json-chunks'
import type { ClientBody, OutgoingJson } from './json-splice'

/**
 * Strings shorter than this are quoted by JSON.stringify every time. Finding a string in a Map
 * hashes it, and V8 hashes strings of up to 16,383 characters in full (~1.7 µs per KB here, about
 * what quoting costs) — but only once per string object, which then keeps its hash. A history's
 * strings are the same objects turn after turn (http/parsed-parts.ts remembers the parsed elements
 * of 1 KB and more), so for them a lookup is a hash already made and one comparison (a pointer),
 * ~0.3 µs, against ~5 µs per KB to quote text with escapes in it; a fresh string pays the hash
 * once. Below 1 KB there is little to save and no remembered element to come from.
 */
export const SHORTEST_KEPT_STRING = 1_024
/** What the cache may hold, in UTF-16 code units of texts and their JSON (~2 bytes each): about 16 MB. */
export const DEFAULT_JSON_TEXT_CACHE_CHARS = 8_000_000
/** How deep the walk goes (body → messages → message → its fields); deeper values are serialized natively. */
const WALKED_DEPTH = 3
/** Where an array's items are (body → messages → message): the items whose JSON is kept when they never change. */
const ITEM_DEPTH = 2

/** A kept JSON text (a long string's, or an item's), and its UTF-8 bytes once asked for. */
interface KeptJson {
  readonly json: string
  bytes?: Buffer
}

/**
 * An array of items that never change as last written for a model server: its items, and the
 * JSON between its brackets as text pieces and bytes.
 */
interface WrittenItems {
  readonly items: readonly unknown[]
  readonly segment: WrittenSegment
  /** The segment's bytes. */
  readonly bytes: number
}

/**
 * Arrays of fewer items are written item by item, not kept: an IDE tool's short conversation (its
 * instructions, a new question) never comes back extended, and a short one has few lookups to save.
 */
export const FEWEST_KEPT_ITEMS = 8

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
  /** A long text's JSON, and that JSON's UTF-8 bytes for `encode` (made the first time they are asked for). */
  private readonly quoted: BoundedStringMap<KeptJson>
  /**
   * The JSON of items that never change (frozen throughout: a remembered element of a history, or
   * what was derived from one, shared/api/element-results.ts), kept with the item: a conversation
   * translated for a model server is made of the same item objects turn after turn, and writing
   * each again, key by key, was most of the body's cost. A WeakMap: an entry lives as long as its
   * item does, which the remembered parts' budget bounds.
   */
  private readonly items = new WeakMap<object, KeptJson>()
  /**
   * Arrays of such items written for a model server, each kept by its last item for the next
   * turn: an agent's conversation is the last one with items added, so what was written of it is
   * written again as it was (its pieces and bytes, no lookup per item), and only the new items
   * are looked up. One per conversation, the newest entries only (kept-by-last-item.ts).
   */
  private readonly arrays = new KeptByLastItem<WrittenItems>(sameItem)

  constructor(maxChars: number = DEFAULT_JSON_TEXT_CACHE_CHARS) {
    this.quoted = new BoundedStringMap(maxChars)
  }

  /** `JSON.stringify(value)` for plain data (see above). */
  stringify(value: unknown): string {
    const out = new JsonChunkWriter()
    this.write(value, 0, out, false)
    return out.finish() as string
  }

  /**
   * `JSON.stringify(value)` as a model server is sent it: text, or, when it holds long strings,
   * their remembered bytes between the encoded rest — so a long prompt is neither quoted nor
   * encoded again, nor copied into one buffer.
   */
  encode(value: unknown): OutgoingJson {
    const out = new JsonChunkWriter()
    this.write(value, 0, out, true)
    return out.finish()
  }

  /**
   * `encode`, for a body made from the client's `source`: a client body of fewer bytes than the
   * shortest string worth remembering can hold no such string (none of its strings has more
   * characters than it has bytes), and is written by JSON.stringify alone — the same text,
   * without the walk that looks for them, which costs more than the whole body on a short one.
   */
  encodeFrom(value: unknown, source: ClientBody | undefined): OutgoingJson {
    return source !== undefined && source.raw.length < SHORTEST_KEPT_STRING ? JSON.stringify(value) : this.encode(value)
  }

  /**
   * `JSON.stringify(value)` for a value that repeats `echoed` (a reply holding one of its request's
   * strings): walked for remembered strings when `echoed` is long enough to be one; otherwise
   * `JSON.stringify` alone, which costs less than the walk on a value without long strings.
   */
  stringifyEchoing(value: unknown, echoed: string | null | undefined): string {
    return isKept(echoed) ? this.stringify(value) : JSON.stringify(value)
  }

  /** `stringifyEchoing` for the socket: a long echoed text goes as its remembered bytes, neither encoded nor copied again. */
  encodeEchoing(value: unknown, echoed: string | null | undefined): OutgoingJson {
    return isKept(echoed) ? this.encode(value) : JSON.stringify(value)
  }

  /** `JSON.stringify(text)`: remembered when the text is long. */
  quote(text: string): string {
    return text.length < SHORTEST_KEPT_STRING ? JSON.stringify(text) : this.remembered(text).json
  }

  /** How many texts and characters it holds, and the bytes of the conversations' arrays it keeps. */
  get size(): { entries: number; chars: number; arrayBytes: number } {
    return { ...this.quoted.size, arrayBytes: this.arrays.size }
  }

  private remembered(text: string): KeptJson {
    const known = this.quoted.get(text)
    if (known !== undefined) return known
    const json = JSON.stringify(text)
    const entry = { json }
    // Counted as the JSON and its bytes (about as many again), whether or not they are made.
    this.quoted.set(text, entry, 2 * json.length)
    return entry
  }

  private write(value: unknown, depth: number, out: JsonChunkWriter, withBytes: boolean): void {
    if (typeof value === 'string') {
      if (value.length < SHORTEST_KEPT_STRING) return out.text(JSON.stringify(value))
      return writeKept(this.remembered(value), out, withBytes)
    }
    if (depth >= WALKED_DEPTH || typeof value !== 'object' || value === null || !isPlain(value)) return out.text(JSON.stringify(value))
    if (depth === ITEM_DEPTH && Object.isFrozen(value)) {
      const known = this.itemJson(value)
      if (known !== undefined) return writeKept(known, out, withBytes)
    }
    if (Array.isArray(value)) return this.writeArray(value, depth, out, withBytes)
    // An object below the top with no long string of its own (a short message) costs less natively.
    if (depth > 0 && !holdsLong(value)) return out.text(JSON.stringify(value))
    out.text('{')
    let first = true
    for (const key of Object.keys(value)) {
      const item = (value as Record<string, unknown>)[key]
      if (omitted(item)) continue
      out.text((first ? '' : ',') + JSON.stringify(key) + ':')
      this.write(item, depth + 1, out, withBytes)
      first = false
    }
    out.text('}')
  }

  /**
   * An array, as JSON.stringify writes it. Runs of items without a long string (most messages of
   * a conversation) go to JSON.stringify together: one native call per run rather than one per
   * item. An array of items (a conversation's messages or items, its tools) written for the
   * socket begins with what was written of an array kept in `arrays`, when it begins as that one
   * did (then only the items after it are looked up), and is kept in turn when every item's JSON
   * is kept (none of them will change).
   */
  private writeArray(value: readonly unknown[], depth: number, out: JsonChunkWriter, withBytes: boolean): void {
    const ofItems = withBytes && depth === ITEM_DEPTH - 1 && value.length >= FEWEST_KEPT_ITEMS
    const earlier = ofItems ? this.arrays.find(value) : undefined
    const last = value.at(-1)
    out.text('[')
    // Only an array whose last item never changes can be kept.
    const start = earlier !== undefined || (ofItems && isFrozenObject(last)) ? out.mark() : undefined
    let i = 0
    if (earlier !== undefined) {
      out.segment(earlier.segment)
      i = earlier.items.length
    }
    let unchanging = true
    while (i < value.length) {
      if (i > 0) out.text(',')
      const item: unknown = value[i]
      const kept = depth + 1 === ITEM_DEPTH && isFrozenObject(item) ? this.itemJson(item) : undefined
      if (kept !== undefined) {
        writeKept(kept, out, withBytes)
        i++
        continue
      }
      // A flat item is kept as a copy of its values (below); any other may change.
      if (start === undefined || !isFlat(item)) unchanging = false
      if (writtenAlone(item, depth + 1)) {
        this.write(item, depth + 1, out, withBytes)
        i++
        continue
      }
      let end = i + 1
      while (end < value.length && !writtenAlone(value[end], depth + 1)) end++
      out.text(JSON.stringify(i === 0 && end === value.length ? value : value.slice(i, end)).slice(1, -1))
      i = end
    }
    if (start !== undefined && unchanging && isFrozenObject(last)) {
      const { pieces, chunks } = out.since(start)
      // What was written before is kept already: only what this turn added is made its own.
      const before = earlier?.items.length ?? 0
      const items = earlier === undefined ? value.map(keptItem) : earlier.items.concat(value.slice(before).map(keptItem))
      const from = earlier?.segment.chunks.length ?? 0
      let bytes = earlier?.bytes ?? 0
      for (let c = from; c < chunks.length; c++) bytes += chunks[c]!.length
      this.arrays.keep({ items, segment: { pieces, chunks: ownChunks(chunks, from) }, bytes }, earlier, bytes)
    }
    out.text(']')
  }

  /** An item's JSON, kept with it once it is known never to change; undefined for one that may. */
  private itemJson(item: object): KeptJson | undefined {
    let known = this.items.get(item)
    if (known === undefined && frozenThroughout(item)) {
      // Once per item: its long strings are quoted once more, and then never again.
      known = { json: JSON.stringify(item) }
      this.items.set(item, known)
    }
    return known
  }
}

/** A kept JSON text, written as text, or, for the socket (`withBytes`) when it is long, as its bytes. */
function writeKept(kept: KeptJson, out: JsonChunkWriter, withBytes: boolean): void {
  if (!withBytes || kept.json.length < SHORTEST_KEPT_STRING) return out.text(kept.json)
  kept.bytes ??= Buffer.from(kept.json)
  out.bytes(kept.json, kept.bytes)
}

/**
 * `chunks` with those from `from` on in buffers of their own, for what is kept: a short text's
 * bytes are a view of Node's shared 8 KB pool, which one kept view would keep whole. A run of
 * such views is copied into one buffer (one allocation, not one per chunk); a chunk with a
 * buffer of its own, and those before `from` (kept before), are kept as they are.
 */
function ownChunks(chunks: readonly Buffer[], from: number): Buffer[] {
  const own = chunks.slice(0, from)
  let run: Buffer[] = []
  let runBytes = 0
  const endRun = () => {
    if (run.length === 0) return
    const joined = Buffer.allocUnsafeSlow(runBytes)
    let at = 0
    for (const chunk of run) at += chunk.copy(joined, at)
    own.push(joined)
    run = []
    runBytes = 0
  }
  for (let i = from; i < chunks.length; i++) {
    const chunk = chunks[i]!
    if (chunk.byteOffset === 0 && chunk.buffer.byteLength === chunk.length) {
      endRun()
      own.push(chunk)
    } else {
      run.push(chunk)
      runBytes += chunk.length
    }
  }
  endRun()
  return own
}

/**
 * Whether an item is a plain object of strings, numbers, booleans and nulls alone (a system
 * message a translation makes anew each turn from the same text): its JSON is a function of those
 * values and their keys' order, so a copy of them stands for it.
 */
function isFlat(item: unknown): item is Record<string, unknown> {
  if (typeof item !== 'object' || item === null || Array.isArray(item) || Object.getPrototypeOf(item) !== Object.prototype) return false
  for (const key in item) {
    const value = (item as Record<string, unknown>)[key]
    if (typeof value === 'object' ? value !== null : typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') return false
  }
  return true
}

/** Copies kept of flat items that were not frozen (an item changed after it was written does not change its copy). */
const flatCopies = new WeakSet<object>()

/** An item of an array kept in `arrays`: an unchanging one itself, a flat one as a frozen copy of its values. */
function keptItem(item: unknown): unknown {
  if (isFrozenObject(item)) return item
  const copy = Object.freeze({ ...(item as Record<string, unknown>) })
  flatCopies.add(copy)
  return copy
}

/** Whether `item` is the item kept as `kept`: the same object, or a flat one with the same keys, in order, and the same values. */
function sameItem(kept: unknown, item: unknown): boolean {
  if (kept === item) return true
  if (!flatCopies.has(kept as object) || !isFlat(item)) return false
  const keys = Object.keys(kept as object)
  const others = Object.keys(item)
  if (keys.length !== others.length) return false
  for (let i = 0; i < keys.length; i++) if (keys[i] !== others[i] || (kept as Record<string, unknown>)[keys[i]!] !== item[keys[i]!]) return false
  return true
}

const isLong = (value: unknown) => typeof value === 'string' && value.length >= SHORTEST_KEPT_STRING

/** Whether a text a value repeats is long enough for its JSON to be kept (`…Echoing`). */
const isKept = (echoed: string | null | undefined): boolean => echoed != null && echoed.length >= SHORTEST_KEPT_STRING

/** Whether an array's item at `depth` is written on its own, not in a run of items: it holds a long string, or its JSON may be kept. */
const writtenAlone = (item: unknown, depth: number): boolean => holdsLong(item) || (depth === ITEM_DEPTH && isFrozenObject(item))

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
 * The JSON text of what carries a conversation's long strings, with their quoted form remembered:
 * the bodies sent to model servers, every form's, and the Responses objects that repeat a
 * request's instructions to its client. A conversation's system prompt and history are sent again
 * on every turn, and quoting them was the costliest pass over the prompt on the request path
 * (docs/benchmark.md). One per process, so a text quoted for the model server is not quoted again
 * for the client.
 */
export const promptJson = new JsonTextCache()
