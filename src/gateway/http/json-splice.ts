import { isAscii } from 'node:buffer'
import { MAX_JSON_DEPTH } from './json-depth'
import { topLevelMembers, type Span } from './json-members'
import { JsonChunkWriter, type ByteChunks, type SplicedJson } from './json-chunks'

export { SplicedJson } from './json-chunks'

/** A request body as the gateway read it: the parsed value, its text, and its bytes. */
export interface ClientBody {
  readonly value: unknown
  readonly text: string
  readonly raw: Buffer
  /** Whether `raw` is ASCII, when the reader found out: then its offsets are `text`'s. */
  readonly ascii?: boolean | undefined
  /** Where its top-level members are in `text`, when reading it found them already. */
  readonly members?: Map<string, Span> | undefined
  /** The text of `[start, end)`, made without decoding the whole body, when the body was not decoded. */
  spanText?(start: number, end: number): string
}

/** A span's text: a slice of the body's text, or, of a body not decoded, made from its bytes when first read. */
function spanTextOf(source: ClientBody, { start, end }: Span): string | (() => string) {
  const { spanText } = source
  return spanText === undefined ? source.text.slice(start, end) : () => spanText.call(source, start, end)
}

/** The body's length in characters, without decoding it when its bytes are ASCII. */
const lengthOf = (source: ClientBody): number => (source.ascii === true ? source.raw.length : source.text.length)

/** A body for a model server: JSON text, or JSON written partly from bytes at hand. */
export type OutgoingJson = string | SplicedJson

export const outgoingText = (body: OutgoingJson): string => (typeof body === 'string' ? body : body.text)
export const outgoingBytes = (body: OutgoingJson): string | ByteChunks => (typeof body === 'string' ? body : body.bytes)

/**
 * Spliced members shorter than this are written as JSON like the rest: re-serializing them costs
 * less than the splice's bookkeeping.
 */
export const SHORTEST_SPLICED_CHARS = 2_048
/**
 * Finding the members costs per string of the body (each one leapt over with `indexOf`), writing
 * them again per byte: for a history of short messages the scan can cost more than serializing
 * it. So when the members' spans are not known already, a body whose spliceable arrays hold
 * messages shorter than this on average is serialized as usual; when reading the body found
 * them (http/parsed-parts.ts, bodies of 8 KB and more), the scan is paid for and any is spliced.
 */
export const SHORTEST_SPLICED_ITEM_CHARS = 1_024

const membersOf = new WeakMap<ClientBody, Map<string, Span> | null>()

/**
 * Where the client's body holds member `name` with exactly `value` (the same JSON value, whatever
 * its spacing, escapes or key order), as a span of its bytes; undefined when it does not, or when
 * its bytes are not ASCII (then text offsets are not byte offsets, and decoding may have replaced
 * invalid bytes, so the bytes might not be the text that was parsed).
 */
export function sentAsIs(source: ClientBody, name: string, value: unknown): Span | undefined {
  let members = membersOf.get(source)
  if (members === undefined) {
    const ascii = source.ascii ?? (source.raw.length === source.text.length && isAscii(source.raw))
    members = ascii ? (source.members ?? topLevelMembers(source.text) ?? null) : null
    membersOf.set(source, members)
  }
  const span = members?.get(name)
  if (span === undefined || typeof source.value !== 'object' || source.value === null) return undefined
  return sameJson((source.value as Record<string, unknown>)[name], value, 0) ? span : undefined
}

/**
 * Whether two values read as the same JSON: `JSON.stringify` of either parses to the other. Strings
 * are compared with `===` — the gateway keeps the client's string objects, so mostly by reference;
 * members that are undefined are absent, as `JSON.stringify` leaves them out.
 */
export function sameJson(a: unknown, b: unknown, depth: number): boolean {
  if (a === b) return typeof a !== 'function' && typeof a !== 'symbol'
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || depth > MAX_JSON_DEPTH) return false
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!sameJson(a[i], b[i], depth + 1)) return false
    return true
  }
  const x = a as Record<string, unknown>
  const y = b as Record<string, unknown>
  let members = 0
  for (const key of Object.keys(x)) {
    const value = x[key]
    if (value === undefined) continue
    members++
    if (!Object.hasOwn(y, key) || !sameJson(value, y[key], depth + 1)) return false
  }
  for (const key of Object.keys(y)) if (y[key] !== undefined) members--
  return members === 0 && Object.getPrototypeOf(x) === Object.getPrototypeOf(y)
}

/**
 * The JSON of `body` (a plain object of request data), with each member named in `spliceable`
 * that the client sent as it is taken from the client's bytes instead of serialized again: no
 * quoting of a prompt and no encoding of it for the socket, only a copy of its bytes. Undefined
 * when none is sent as it is (or all such are short): serialize the body as usual.
 */
export function spliceClientMembers(
  source: ClientBody | undefined,
  body: Record<string, unknown>,
  spliceable: readonly string[],
  stringify: (value: unknown) => string,
): SplicedJson | undefined {
  // No member of a short body can be long enough: not even the scan for members is worth it.
  if (source === undefined || lengthOf(source) < SHORTEST_SPLICED_CHARS) return undefined
  let items = 0
  for (const name of spliceable) {
    const value = body[name]
    if (Array.isArray(value)) items += value.length
  }
  // When reading the body found its members already (parsed-parts.ts), the scan is paid for.
  if (source.members === undefined && items > 0 && lengthOf(source) / items < SHORTEST_SPLICED_ITEM_CHARS) return undefined
  const spans = new Map<string, Span>()
  let spliced = 0
  for (const name of spliceable) {
    const value = body[name]
    if (value === undefined) continue
    const span = sentAsIs(source, name, value)
    if (span === undefined) continue
    spans.set(name, span)
    spliced += span.end - span.start
  }
  if (spliced < SHORTEST_SPLICED_CHARS) return undefined
  const out = new JsonChunkWriter()
  let first = true
  for (const [name, value] of Object.entries(body)) {
    if (value === undefined || typeof value === 'function' || typeof value === 'symbol') continue
    out.text((first ? '{' : ',') + JSON.stringify(name) + ':')
    first = false
    const span = spans.get(name)
    if (span === undefined) out.text(stringify(value))
    else out.bytes(spanTextOf(source, span), source.raw.subarray(span.start, span.end))
  }
  out.text(first ? '{}' : '}')
  return out.finish() as SplicedJson
}
