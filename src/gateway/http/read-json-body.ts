import { isAscii } from 'node:buffer'
import type { IncomingMessage } from 'node:http'
import { GatewayError, invalidRequest } from '../errors'
import { recorderOf } from '../capture/exchange-recorder'
import { MAX_JSON_DEPTH } from './json-depth'
import { ParsedParts, TooDeep } from './parsed-parts'
import { readStream } from './read-stream'
import { errorText } from '../../shared/narrow'
import type { ClientBody } from './json-splice'
import type { Span } from './json-members'
import { asciiText } from './decode-in-pieces'

export const DEFAULT_BODY_LIMIT_BYTES = 8 * 1024 * 1024

const tooLarge = (limit: number) =>
  new GatewayError('request_too_large', `The request body is larger than the gateway's limit of ${limit} bytes.`)

/**
 * Past this size, gathering, decoding and parsing a body (each ~1–3 ms per MB) are separate turns
 * of the event loop, with other requests' work between them: an 8 MB body then holds the loop for
 * three stretches of ~10–25 ms rather than one long one.
 */
const LARGE_BODY_BYTES = 1024 * 1024

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Bodies of one scope (an organization) whose parsed history the reader may reuse. */
export interface KnownParts {
  readonly parts: ParsedParts
  readonly scope: string
}

/** Parses with nothing remembered, for the bodies that are not conversations (keys, settings). */
const NOTHING_KNOWN: KnownParts = { parts: new ParsedParts(0), scope: '' }

/**
 * Read and parse a JSON body, refusing more than `limit` bytes before buffering them. With `known`,
 * the parts of a conversation parsed before for the same scope are reused (parsed-parts.ts). The
 * Content-Type is not checked: every request needs an Authorization header, which no page can
 * send cross-origin without a CORS preflight, so a lenient parser opens no CSRF door, and clients
 * that forget the header (curl -d) still work.
 */
export async function readJsonBody(req: IncomingMessage, limit: number, known: KnownParts = NOTHING_KNOWN): Promise<ClientBody> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
  const { bytes: raw, overflowed } = await readStream(req, limit, Number.isFinite(declared) ? declared : undefined)
  // Every JSON body is read here, so this is where capture keeps it: as received, even when refused.
  const recorder = recorderOf(req)
  if (recorder !== undefined) recorder.requestBody = raw
  // The rest is read and dropped while the 413 closes the connection (close-after-body.ts).
  if (overflowed) throw tooLarge(limit)
  const large = raw.length > LARGE_BODY_BYTES
  if (large) await yieldToEventLoop()
  // ASCII: one byte per character, so the bytes are the text's, offset for offset.
  const ascii = isAscii(raw)
  // An agent's next turn begins with the bytes of its last: those are neither decoded nor parsed.
  const continued = ascii ? refusedAsJson(() => known.parts.continueBytes(raw, known.scope)) : undefined
  if (continued !== undefined) {
    if (recorder !== undefined) recorder.bodyUndecoded(raw, continued.continued)
    return new UndecodedBody(continued.value, raw, continued.members)
  }
  const text = raw.toString('utf8')
  // Capture keeps the text as decoded here, rather than decoding the bytes once more at the end.
  if (recorder !== undefined) recorder.bodyDecoded(text, raw, ascii)
  if (large) await yieldToEventLoop()
  if (text.trim() === '') throw invalidRequest('The request body is empty; send a JSON object.', null, 'invalid_json')
  const { value, members } = refusedAsJson(() => known.parts.parse(text, known.scope, { raw, ascii, beginningsTried: ascii }))
  if (large) await yieldToEventLoop()
  return { value, text, raw, ascii, members }
}

/** What `parse` gives, or the 400 for a body that is not JSON or nests too deep. */
function refusedAsJson<T>(parse: () => T): T {
  try {
    return parse()
  } catch (error) {
    if (error instanceof TooDeep) {
      throw invalidRequest(`The request body nests JSON more than ${MAX_JSON_DEPTH} levels deep, which the gateway does not accept.`, null, 'invalid_json')
    }
    throw invalidRequest(`The request body is not valid JSON: ${errorText(error)}`, null, 'invalid_json')
  }
}

/**
 * An ASCII body parsed without decoding it whole: its text is decoded when first asked for, in
 * pieces (a string of 128 KB or more costs ~10 times as much to make: decode-in-pieces.ts), and
 * a span's text is decoded from its bytes alone.
 */
class UndecodedBody implements ClientBody {
  readonly ascii = true
  private decoded: string | undefined

  constructor(
    readonly value: unknown,
    readonly raw: Buffer,
    readonly members: Map<string, Span>,
  ) {}

  get text(): string {
    return (this.decoded ??= asciiText(this.raw))
  }

  spanText(start: number, end: number): string {
    return asciiText(this.raw, start, end)
  }
}
