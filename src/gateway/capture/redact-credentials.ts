import { isViewOf, type ByteChunks } from '../http/json-chunks'
import type { ContinuedBytes } from '../http/known-beginnings'
import type { CapturedFrame, Exchange, HeaderPairs } from '../../shared/api/traffic'
import { apiKeyHint } from '../auth/api-key'

/** Headers that carry credentials: recorded only as a hint of what was sent. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key'])
/** Mortar sets no cookies; a browser's cookies for localhost belong to other apps and are not recorded. */
const UNRECORDED_HEADERS = new Set(['cookie'])

const SCHEME = /^(\S+)\s+(\S+)\s*$/

/**
 * A secret reduced to what may be shown: a valid key's hint (as `mortar keys list` shows it), or,
 * for anything else, only its last four characters — an unknown token may be another service's key.
 */
export function secretHint(secret: string, isValidKey: boolean): string {
  if (isValidKey) return apiKeyHint(secret)
  return secret.length >= 16 ? `…${secret.slice(-4)} (${secret.length} characters)` : `(${secret.length} characters)`
}

export interface RedactedRequest {
  headers: HeaderPairs
  /** The secrets that were sent, to take out of the body too. */
  secrets: string[]
}

/**
 * Request headers as received (rawHeaders order, names lower-cased), credentials reduced to hints.
 * `checkedKey`: the key Mortar accepted, in whichever header it came (its hint is the key's own).
 */
export function redactHeaders(rawHeaders: readonly string[], checkedKey: string | undefined): RedactedRequest {
  const headers: HeaderPairs = []
  const secrets: string[] = []
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase()
    const value = rawHeaders[i + 1] as string
    if (UNRECORDED_HEADERS.has(name)) headers.push([name, '(not recorded)'])
    else if (CREDENTIAL_HEADERS.has(name)) {
      const scheme = SCHEME.exec(value)
      const secret = scheme?.[2] ?? value.trim()
      if (secret !== '') secrets.push(secret)
      // Only the key Mortar checked and accepted is known to be a key; other secrets may be anyone's.
      const hint = secretHint(secret, checkedKey !== undefined && secret === checkedKey)
      headers.push([name, scheme !== null ? `${scheme[1]} ${hint}` : hint])
    } else headers.push([name, value])
  }
  return { headers, secrets }
}

/**
 * Query parameters that carry credentials (`?api_key=…`, `?key=…` as some SDKs send them): kept
 * by name, their values reduced to hints like a credential header's. Mortar reads no key from the
 * query, so such a value is never a key Mortar checked: only its last four characters are shown.
 */
const CREDENTIAL_PARAMS = new Set(['api_key', 'api-key', 'apikey', 'key', 'access_token', 'token'])

/** The URL as received, credential parameters' values reduced to hints (the rest byte for byte). */
export function redactUrl(url: string): RedactedRequest & { url: string } {
  const query = url.indexOf('?')
  if (query === -1) return { url, headers: [], secrets: [] }
  const secrets: string[] = []
  const params = url
    .slice(query + 1)
    .split('&')
    .map((param) => {
      const eq = param.indexOf('=')
      if (eq === -1 || !CREDENTIAL_PARAMS.has(decodeOr(param.slice(0, eq)).toLowerCase())) return param
      const secret = decodeOr(param.slice(eq + 1))
      if (secret === '') return param
      secrets.push(secret)
      return `${param.slice(0, eq)}=${encodeURIComponent(secretHint(secret, false))}`
    })
  return { url: `${url.slice(0, query)}?${params.join('&')}`, headers: [], secrets }
}

function decodeOr(text: string): string {
  try {
    return decodeURIComponent(text.replace(/\+/g, ' '))
  } catch {
    return text
  }
}

/** A body with any secret that was also sent as a credential replaced by its hint (clients paste keys into prompts). */
export function redactBody(body: string, secrets: readonly string[]): string {
  let out = body
  for (const secret of searchable(secrets)) if (out.includes(secret)) out = out.split(secret).join(secretHint(secret, false))
  return out
}

/** Secrets shorter than this are not looked for in texts (too likely to match by chance). */
const SHORTEST_SEARCHED_SECRET = 8

/** The secrets worth looking for in a text: those not too short to match by chance. */
export const searchable = (secrets: readonly string[]): string[] => secrets.filter((secret) => secret.length >= SHORTEST_SEARCHED_SECRET)

/** The secrets a request sent as credentials, in its headers and its query, as the record finds them. */
export function sentSecrets(rawHeaders: readonly string[], url: string): string[] {
  return [...redactHeaders(rawHeaders, undefined).secrets, ...redactUrl(url).secrets]
}

/**
 * Beginnings kept of earlier bodies (http/known-beginnings.ts) whose bytes were found to hold none
 * of a set of secrets, with that set (`secretSetKey`). A beginning's bytes never change while it
 * is kept, and one no longer kept is never continued from again. A WeakMap: a mark lives as long as
 * its beginning.
 */
const cleanBeginnings = new WeakMap<object, string>()

/**
 * Whether a request body's bytes hold one of the secrets (as `bytesHoldSecret` of a buffer).
 * `continued`: how the body goes on from a beginning kept of an earlier body. An agent's turn
 * repeats its last body's bytes and adds a few; when those bytes were found clean for the same
 * secrets, only what follows them is searched, from as far back as a secret crossing into it could
 * begin — 20 µs a turn at 128 KB, on every turn. A body found clean marks the beginning kept of it
 * in turn.
 */
export function requestBodyHoldsSecret(raw: Buffer, secrets: readonly string[], continued: ContinuedBytes | undefined): boolean {
  const wanted = searchable(secrets)
  if (wanted.length === 0) return false
  // A body that continues none (every short prompt) is searched whole, and marks nothing.
  if (continued === undefined) return wanted.some((secret) => raw.includes(secret))
  const secretSet = secretSetKey(wanted)
  // A secret that crosses the end of the shared bytes begins at most this many bytes before it.
  const from = cleanBeginnings.get(continued.sharedWith) === secretSet ? Math.max(0, continued.sharedBytes - reachAcrossCut(wanted)) : 0
  if (wanted.some((secret) => raw.includes(secret, from))) return true
  if (continued.kept !== undefined) cleanBeginnings.set(continued.kept, secretSet)
  return false
}

/** How many bytes of a secret that crosses a cut may lie on one side of it: the longest one's bytes but one. */
function reachAcrossCut(secrets: readonly string[]): number {
  return Math.max(...secrets.map((secret) => Buffer.byteLength(secret))) - 1
}

/** One text for a set of secrets that tells every two sets apart (each secret led by its length). */
function secretSetKey(secrets: readonly string[]): string {
  let key = ''
  for (const secret of secrets) key += `${secret.length}:${secret}`
  return key
}

/**
 * Bytes of a body in pieces searched at once: pieces are copied into this window, which is
 * searched when full or at the end. One search of copied bytes costs less than one per piece (a
 * spliced body of 128 KB has hundreds of pieces, and each search call costs as much as a copy of
 * a few hundred bytes), and a secret that spans pieces is found without gathering each boundary.
 */
const SEARCH_WINDOW_BYTES = 256 * 1024
/** The window's memory, kept between searches (they run one at a time, synchronously). */
let searchWindow = Buffer.alloc(0)

/**
 * Long pieces of bodies sent, found to hold none of a set of secrets, with that set
 * (`secretSetKey`). A translated conversation is made of the same pieces turn after turn (a
 * remembered long text's bytes, an item's, what was written of the history before:
 * http/json-text.ts), and a piece of a body sent is never written to once made, so a long piece
 * found clean is searched again only at its edges. Pieces shorter than SHORTEST_MARKED_PIECE are
 * copied into the window whole: a piece of a few KB costs less to copy and search than to look up
 * and search at its edges (on a body of 29 pieces of ~2 KB, marking every piece made the search no
 * faster: 16 µs before, 16–20 after). A WeakMap: a mark lives as long as its piece.
 */
const cleanPieces = new WeakMap<Buffer, string>()
export const SHORTEST_MARKED_PIECE = 8 * 1024

/** How `bytesHoldSecret` searches. */
export interface SecretSearch {
  /** At most this many bytes of pieces are searched at a time (tests make it small). */
  readonly windowBytes?: number
  /**
   * Bytes known to hold none of the secrets (the client's body, searched already): a piece that is
   * a view of them is searched only at its edges, where a secret may cross into its neighbours.
   */
  readonly clean?: Buffer | undefined
}

/**
 * Whether UTF-8 `bytes` hold one of the secrets: exactly when their text does, since UTF-8 is
 * self-synchronizing (a secret's encoding matches only where the text holds the secret).
 */
export function bytesHoldSecret(bytes: Buffer | ByteChunks, secrets: readonly string[], { windowBytes = SEARCH_WINDOW_BYTES, clean }: SecretSearch = {}): boolean {
  const wanted = searchable(secrets)
  if (wanted.length === 0) return false
  const holds = (view: Buffer) => wanted.some((secret) => view.includes(secret))
  if (Buffer.isBuffer(bytes)) return holds(bytes)
  const reach = reachAcrossCut(wanted)
  if (bytes.chunks.length === 1 && (clean === undefined || !isViewOf(bytes.chunks[0]!, clean))) return holds(bytes.chunks[0]!)
  let secretSet: string | undefined
  /** Long pieces not known clean, which the search takes whole: known clean from then on, if it finds nothing. */
  const searchedWhole: Buffer[] = []
  const known = (chunk: Buffer): boolean => {
    if (clean !== undefined && isViewOf(chunk, clean)) return true
    if (chunk.length < SHORTEST_MARKED_PIECE) return false
    if (cleanPieces.get(chunk) === (secretSet ??= secretSetKey(wanted))) return true
    searchedWhole.push(chunk)
    return false
  }
  if (piecesHoldSecret(bytes, holds, reach, windowBytes, known)) return true
  for (const chunk of searchedWhole) cleanPieces.set(chunk, secretSet!)
  return false
}

/**
 * Whether `bytes`' pieces, one after another, hold a secret (`holds` searches a view): copied into
 * a window that is searched whenever full; a piece `known` to hold none is searched only at its edges.
 */
function piecesHoldSecret(bytes: ByteChunks, holds: (view: Buffer) => boolean, reach: number, windowBytes: number, known: (chunk: Buffer) => boolean): boolean {
  const size = Math.min(bytes.length, windowBytes) + reach
  if (searchWindow.length < size) searchWindow = Buffer.allocUnsafe(size)
  const window = searchWindow.subarray(0, size)
  let filled = 0
  // Each window after the first begins with the last `reach` bytes of the one before: a secret
  // cut by a window's end is whole in the next.
  const append = (chunk: Buffer): boolean => {
    for (let from = 0; from < chunk.length; ) {
      const copied = chunk.copy(window, filled, from, Math.min(chunk.length, from + window.length - filled))
      filled += copied
      from += copied
      if (filled < window.length) continue
      if (holds(window)) return true
      window.copy(window, 0, filled - reach, filled)
      filled = reach
    }
    return false
  }
  for (const chunk of bytes.chunks) {
    if (chunk.length <= 2 * reach || !known(chunk)) {
      if (append(chunk)) return true
      continue
    }
    // No secret lies wholly inside a clean piece; one that crosses this piece's start
    // ends within its first `reach` bytes, one that crosses its end begins within its last.
    if (append(chunk.subarray(0, reach))) return true
    if (filled > 0 && holds(window.subarray(0, filled))) return true
    filled = 0
    if (append(chunk.subarray(chunk.length - reach))) return true
  }
  return filled > 0 && holds(window.subarray(0, filled))
}

/** Texts of an exchange already searched in their bytes, found to hold no secret. */
export interface CleanTexts {
  modelBody?: boolean
  requestBody?: boolean
  responseBody?: boolean
  upstreamReply?: boolean
}

/**
 * Every text of an exchange with the secrets its client sent as credentials replaced by their
 * hints: the body as received, what the model saw (a copy of it), and whatever the reply repeats
 * of it (a model echoing a prompt). A frame is copied only when it holds a secret; a secret split
 * across two frames is not found (no frame holds it whole). `clean`: texts already searched in
 * their bytes, that hold none — the body sent and a JSON reply written from pieces (searching a
 * text of pieces would first copy it whole), the body as received when its bytes are ASCII (the
 * text is then decoded in pieces, or not at all), and a model server's reply read whole. Texts
 * that hold no secret stay the very strings they were, and an exchange with none is returned as
 * it is.
 */
export function redactExchange(exchange: Exchange, secrets: readonly string[], clean: CleanTexts = {}): Exchange {
  const modelBodyClean = clean.modelBody === true
  const wanted = searchable(secrets)
  if (wanted.length === 0) return exchange
  const text = (value: string) => redactBody(value, wanted)
  const orNull = (value: string | null) => (value === null ? null : text(value))
  const frames = (list: CapturedFrame[]) => (list.some((frame) => wanted.some((secret) => frame.raw.includes(secret))) ? list.map((frame) => ({ t_ms: frame.t_ms, raw: text(frame.raw) })) : list)
  const { upstream, request, response } = exchange
  const requestBody = clean.requestBody === true ? request.body : text(request.body)
  const modelBody = modelBodyClean ? exchange.model_body : orNull(exchange.model_body)
  const responseBody = clean.responseBody === true ? response.body : orNull(response.body)
  const responseFrames = frames(response.frames)
  // The body sent is the model body (one string) when a model server was sent it: searched once.
  const sentBody = upstream === null ? null : modelBodyClean || upstream.body === exchange.model_body ? (modelBody ?? upstream.body) : text(upstream.body)
  const upstreamReply = upstream === null ? null : clean.upstreamReply === true ? upstream.response_body : orNull(upstream.response_body)
  const upstreamFrames = upstream === null ? null : frames(upstream.frames)
  const same =
    requestBody === request.body &&
    modelBody === exchange.model_body &&
    responseBody === response.body &&
    responseFrames === response.frames &&
    (upstream === null || (sentBody === upstream.body && upstreamReply === upstream.response_body && upstreamFrames === upstream.frames))
  if (same) return exchange
  return {
    ...exchange,
    request: { ...request, body: requestBody },
    model_body: modelBody,
    response: { ...response, body: responseBody, frames: responseFrames },
    upstream: upstream === null ? null : { ...upstream, body: sentBody ?? upstream.body, response_body: upstreamReply, frames: upstreamFrames ?? upstream.frames },
  }
}
