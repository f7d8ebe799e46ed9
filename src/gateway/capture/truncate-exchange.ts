import { isUtf8 } from 'node:buffer'
import type { CapturedFrame, Exchange } from '../../shared/api/traffic'

/** What the metadata of an exchange costs besides its texts (IDs, times, usage…), roughly. */
const METADATA_BYTES = 512
/**
 * What one frame costs in memory beyond its text (its object, its time, the array slot, the
 * string's header): counted so the byte budget is close to what the store really holds.
 */
const FRAME_OVERHEAD_BYTES = 64

/**
 * The UTF-8 sizes of an exchange's long texts when the stage that had their bytes already knows
 * them (the body reader, the upstream backend): measuring a 128 KB prompt again costs ~60 µs per
 * text, and a spliced body (a string of pieces) must first be copied whole to be measured. Each
 * size belongs to the very string it was recorded with; a text redacted or cut is measured anew.
 */
export interface KnownSizes {
  requestBody?: number | undefined
  modelBody?: number | undefined
  upstreamBody?: number | undefined
  responseBody?: number | undefined
  upstreamReply?: number | undefined
}

const NONE: KnownSizes = {}

/**
 * The UTF-8 size of `raw` decoded as UTF-8 text, when the bytes alone tell it: valid UTF-8
 * decodes to a text that encodes back to the same bytes (a byte-order mark included). Invalid
 * bytes decode to U+FFFD, whose size differs: undefined, measure the text.
 */
export function decodedSize(raw: Buffer): number | undefined {
  return isUtf8(raw) ? raw.length : undefined
}

/** An exchange's size in the store: the UTF-8 bytes of all its texts, plus its metadata. */
export function exchangeSize(exchange: Exchange, known: KnownSizes = NONE): number {
  let size = METADATA_BYTES
  size += Buffer.byteLength(exchange.request.url) + (known.requestBody ?? Buffer.byteLength(exchange.request.body))
  size += headersSize(exchange.request.headers) + headersSize(exchange.response.headers)
  if (exchange.model_body !== null) size += known.modelBody ?? Buffer.byteLength(exchange.model_body)
  if (exchange.response.body !== null) size += known.responseBody ?? Buffer.byteLength(exchange.response.body)
  size += framesSize(exchange.response.frames)
  const { upstream } = exchange
  if (upstream !== null) {
    size += (known.upstreamBody ?? Buffer.byteLength(upstream.body)) + headersSize(upstream.headers) + framesSize(upstream.frames)
    if (upstream.response_body !== null) size += known.upstreamReply ?? Buffer.byteLength(upstream.response_body)
  }
  return size
}

/**
 * Make an exchange fit in `maxBytes`: first each long text (request body, model body, reply
 * bodies) is cut to a tenth of the budget, then frames are dropped from the middle of the longer
 * stream, keeping its start and its end. Metadata is never cut. Whatever was cut — here, or
 * earlier by the recorder (frames its log dropped, the unread rest of a refused request's body:
 * `dropped`) — is stated in `truncated`; nothing goes silently.
 */
export function fitExchange(
  exchange: Exchange,
  maxBytes: number,
  dropped: { frames: number; bytes: number; cut?: boolean },
  known: KnownSizes = NONE,
): Exchange {
  const size = exchangeSize(exchange, known)
  if (size <= maxBytes && dropped.frames === 0 && dropped.cut !== true) return { ...exchange, size_bytes: size, truncated: null }
  let out = exchange
  let sizes = known
  let droppedFrames = dropped.frames
  if (size > maxBytes) {
    const share = Math.floor(maxBytes / 10)
    const upstream = out.upstream
    out = {
      ...out,
      request: { ...out.request, body: cutToBytes(out.request.body, share) },
      model_body: out.model_body === null ? null : cutToBytes(out.model_body, share),
      response: { ...out.response, body: out.response.body === null ? null : cutToBytes(out.response.body, share) },
      upstream:
        upstream === null
          ? null
          : { ...upstream, body: cutToBytes(upstream.body, share), response_body: upstream.response_body === null ? null : cutToBytes(upstream.response_body, share) },
    }
    // A size known stays known for a text the cut left as it was (cutToBytes returns it itself).
    const kept = (before: string | null | undefined, after: string | null | undefined, bytes: number | undefined) => (after === before ? bytes : undefined)
    sizes = {
      requestBody: kept(exchange.request.body, out.request.body, known.requestBody),
      modelBody: kept(exchange.model_body, out.model_body, known.modelBody),
      upstreamBody: kept(exchange.upstream?.body, out.upstream?.body, known.upstreamBody),
      responseBody: kept(exchange.response.body, out.response.body, known.responseBody),
      upstreamReply: kept(exchange.upstream?.response_body, out.upstream?.response_body, known.upstreamReply),
    }
    let current = exchangeSize(out, sizes)
    const reply = [...out.response.frames]
    const fromServer = out.upstream === null ? [] : [...out.upstream.frames]
    while (current > maxBytes && reply.length + fromServer.length > 0) {
      // A block at a time (an eighth of the longer list), so a stream of many small frames fits in a few steps.
      const list = reply.length >= fromServer.length ? reply : fromServer
      const count = Math.max(1, Math.ceil(list.length / 8))
      const removed = list.splice(Math.floor((list.length - count) / 2), count)
      current -= framesSize(removed)
      droppedFrames += removed.length
    }
    out = { ...out, response: { ...out.response, frames: reply }, upstream: out.upstream === null ? null : { ...out.upstream, frames: fromServer } }
  }
  const keptBytes = exchangeSize(out, sizes)
  return { ...out, size_bytes: keptBytes, truncated: { original_bytes: size + dropped.bytes, kept_bytes: keptBytes, dropped_frames: droppedFrames } }
}

/** The longest prefix of `text` within `maxBytes` of UTF-8, never splitting a character. */
export function cutToBytes(text: string, maxBytes: number): string {
  if (text.length <= maxBytes / 3 || Buffer.byteLength(text) <= maxBytes) return text
  // Every UTF-16 unit is at least a byte, so the first `maxBytes` bytes come from the first
  // `maxBytes` units (one more keeps a surrogate pair there whole): only those are encoded, not a
  // multi-megabyte body, which held the event loop for as long as its parse.
  const cut = Buffer.from(text.slice(0, maxBytes + 1), 'utf8').subarray(0, maxBytes).toString('utf8')
  // A character cut in half decodes as U+FFFD at the end: leave it out.
  return cut.endsWith('\uFFFD') && !text.startsWith(cut) ? cut.slice(0, -1) : cut
}

function framesSize(frames: readonly CapturedFrame[]): number {
  let size = frames.length * FRAME_OVERHEAD_BYTES
  for (const frame of frames) size += Buffer.byteLength(frame.raw)
  return size
}

function headersSize(headers: ReadonlyArray<readonly [string, string]>): number {
  let size = 0
  for (const [name, value] of headers) size += name.length + value.length + 4
  return size
}
