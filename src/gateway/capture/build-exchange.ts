import { isAscii } from 'node:buffer'
import { presentedKey } from '../auth/authenticate'
import { isViewOf, type ByteChunks } from '../http/json-chunks'
import { responseHeader, responseHeaderPairs } from '../http/response-head'
import { errorEnvelopeSchema } from '../../shared/api/errors'
import { MortarHeader } from '../../shared/api/headers'
import { SseFrameSplitter } from '../../shared/sse/sse-frame-splitter'
import { isoTime } from './iso-time'
import type {
  CapturedError,
  CapturedFrame,
  Exchange,
  ExchangeClient,
  ExchangeOutcomeKind,
  HeaderPairs,
  UpstreamExchange,
} from '../../shared/api/traffic'
import type { RefusedKey } from '../auth/key-store'
import type { KnownBytes } from './exchange-store'
import type { ExchangeRecorder, GenerationFacts, UpstreamRecording } from './exchange-recorder'
import type { RecordedFrame } from './frame-log'
import { bytesHoldSecret, redactExchange, redactHeaders, redactUrl, requestBodyHoldsSecret, secretHint } from './redact-credentials'
import { decodedSize, fitExchange } from './truncate-exchange'

/**
 * The exchange as a record, from everything its recorder saw: at the end (`final`), or as a
 * snapshot of one still running. Credentials are reduced to hints here, before anything is kept.
 */
export function buildExchange(recorder: ExchangeRecorder, maxBytes: number): Exchange {
  return build(recorder, maxBytes, false).exchange
}

/**
 * The ended exchange for a store that keeps texts as their bytes (KnownBytes): the body as
 * received and the body sent, when their bytes are at hand, ASCII and hold no credential, are left
 * out of the record as '' — decoding them (64 KB of strings for a 32 KB prompt) was a fifth of what
 * a stream allocated, only for the store to copy their bytes — and handed over as bytes instead.
 * An exchange over `maxBytes` is built whole, so that its texts can be cut.
 */
export function buildStoredExchange(recorder: ExchangeRecorder, maxBytes: number): { exchange: Exchange; known: KnownBytes } {
  const lean = build(recorder, maxBytes, true)
  const { leftOut } = lean
  const anyLeftOut = leftOut.request || leftOut.sent
  if (anyLeftOut && lean.exchange.truncated !== null) {
    const whole = build(recorder, maxBytes, false).exchange
    return { exchange: whole, known: knownBytesOf(recorder, whole) }
  }
  return { exchange: lean.exchange, known: knownBytesOf(recorder, lean.exchange, leftOut) }
}

/** Which texts at hand a record left out (as ''), for their bytes to be kept instead. */
interface LeftOut {
  readonly request: boolean
  readonly sent: boolean
}

const NOTHING_LEFT_OUT: LeftOut = { request: false, sent: false }

function build(recorder: ExchangeRecorder, maxBytes: number, leaveOutBytesAtHand: boolean): { exchange: Exchange; leftOut: LeftOut } {
  const { req, res, principal, completion } = recorder
  const final = recorder.endedAt !== null
  const headersSent = res.headersSent
  const status = headersSent || (final && res.writableFinished) ? res.statusCode : null
  const responseHeaders = headersSent ? responseHeaderPairs(res) : []
  const isStream = String(responseHeader(res, 'content-type') ?? '').startsWith('text/event-stream')
  const written = recorder.frames.frames()
  const frames = isStream ? capturedFrames(written) : []
  // A JSON reply written from pieces at hand is kept as those pieces, whole (its frames all kept).
  const reply = !isStream && recorder.frames.droppedSize === 0 ? recorder.replyJson : undefined
  const responseBody = reply !== undefined ? reply.text : isStream || written.length === 0 ? null : written.map((frame) => textOf(frame.raw)).join('')
  const generation = final ? recorder.generationFacts() : undefined
  const error = status !== null && status >= 400 && !isStream ? (recorder.refusal ?? errorOfBody(responseBody)) : (generation?.error ?? null)

  const bearer = presentedKey(req.headers).key
  // A Mortar key (a valid one, or one that expired or was revoked) is shown by its hint, as the key list shows it.
  const { headers, secrets: sent } = redactHeaders(req.rawHeaders, principal !== undefined || recorder.refusedKey !== undefined ? bearer : undefined)
  const url = redactUrl(recorder.url)
  const secrets = [...sent, ...url.secrets]
  const client = clientOf(principal, recorder.refusedKey, bearer, error?.code ?? null)
  const { requestBody, upstream } = recorder
  // Bytes at hand are searched as bytes: searching a text decoded in pieces would first join them.
  const asciiRequest = recorder.requestAscii && Buffer.isBuffer(requestBody) ? requestBody : undefined
  const requestClean = asciiRequest !== undefined && !requestBodyHoldsSecret(asciiRequest, secrets, recorder.requestContinues)
  const sentClean = recorder.sentBodyHoldsSecret(secrets, requestClean ? asciiRequest : undefined) === false
  const leftOut: LeftOut = {
    request: leaveOutBytesAtHand && requestClean && asciiRequest.length > 0,
    sent: leaveOutBytesAtHand && sentClean && upstream?.bodyChunks !== undefined && upstream.bodyChunks.length > 0 && allAscii(upstream.bodyChunks, asciiRequest),
  }
  const received = leftOut.request ? '' : recorder.requestText()
  const sentText = leftOut.sent ? '' : recorder.sentBody()
  const usage = generation?.record.usage ?? null
  const cached = usage?.prompt_tokens_details?.cached_tokens

  const exchange: Exchange = {
    id: recorder.id,
    started_at: isoTime(recorder.startedAt),
    method: req.method ?? 'GET',
    endpoint: recorder.endpoint,
    status,
    outcome: final ? outcomeOf(status, isStream, res.writableFinished, generation, error) : 'in_progress',
    finish_reason: generation?.record.finishReason ?? null,
    client,
    org: principal?.org ?? null,
    request_id: stringHeader(responseHeader(res, MortarHeader.clientRequestId)) ?? '',
    completion_id: stringHeader(responseHeader(res, MortarHeader.requestId)),
    model: completion?.model ?? null,
    deployment: completion?.deployment ?? null,
    replica: generation?.record.upstream ?? recorder.upstream?.replica ?? null,
    session: completion?.session ?? null,
    stream: completion?.stream ?? null,
    ttft_ms: recorder.ttftMs,
    duration_ms: recorder.endedAt === null ? null : Math.round((recorder.endedAt - recorder.t0) * 100) / 100,
    usage,
    usage_source: generation?.record.usageSource ?? null,
    cached_tokens: typeof cached === 'number' ? cached : null,
    error,
    truncated: null,
    size_bytes: 0,
    request: { url: url.url, headers, body: received },
    model_body: sentText ?? (final ? (recorder.modelBody?.() ?? null) : null),
    response: { headers: responseHeaders, frames, body: responseBody },
    upstream: upstream === undefined ? null : upstreamOf(upstream, sentText ?? '', final),
  }
  const dropped = recorder.frames.dropped + (recorder.upstream?.frames.dropped ?? 0)
  const droppedBytes = recorder.frames.droppedSize + (recorder.upstream?.frames.droppedSize ?? 0) + recorder.requestBodyUnread
  const replyBytes = upstream?.responseBytes
  const redacted = redactExchange(exchange, secrets, {
    modelBody: sentClean,
    requestBody: requestClean,
    responseBody: reply !== undefined && !bytesHoldSecret(reply.bytes, secrets),
    upstreamReply: replyBytes !== undefined && !bytesHoldSecret(replyBytes, secrets),
  })
  // Sizes the stages handed over, for the texts redaction left as they were. The body sent is
  // the model body too (one string): measured once, if the backend did not say.
  const sentBytes = upstream === undefined ? undefined : (upstream.bodyChunks?.length ?? Buffer.byteLength(sentText ?? ''))
  const requestBytes = typeof requestBody === 'string' || recorder.requestAscii ? recorder.requestBytes : requestBody === undefined ? 0 : decodedSize(requestBody)
  // A text left out is '' here and is known by its bytes' size; any other by the string it was recorded as.
  const known = {
    requestBody: redacted.request.body === received ? requestBytes : undefined,
    modelBody: upstream !== undefined && redacted.model_body === sentText ? sentBytes : undefined,
    upstreamBody: upstream !== undefined && redacted.upstream?.body === sentText ? sentBytes : undefined,
    responseBody: reply !== undefined && redacted.response.body === responseBody ? reply.bytes.length : undefined,
    upstreamReply: replyBytes !== undefined && redacted.upstream?.response_body === upstream?.responseBody ? decodedSize(replyBytes) : undefined,
  }
  return { exchange: fitExchange(redacted, maxBytes, { frames: dropped, bytes: droppedBytes, cut: recorder.requestBodyCut }, known), leftOut }
}

/**
 * Whether every byte of `bytes` is ASCII (one byte per character: as many bytes as the text has
 * characters). `ascii`: bytes known to be ASCII (the request body's, as the reader found them): a
 * piece spliced from them is not checked again.
 */
function allAscii(bytes: Buffer | ByteChunks, ascii: Buffer | undefined): boolean {
  if (Buffer.isBuffer(bytes)) return isAscii(bytes)
  return bytes.chunks.every((chunk) => (ascii !== undefined && isViewOf(chunk, ascii)) || isAscii(chunk))
}

/**
 * What the record knows of the exchange's texts as built: the bytes of those kept as they came
 * (neither redacted nor cut) when they are at hand — the body as received, when the reader found
 * its bytes ASCII, and the body sent — and whether the model body is the body sent. Each compared
 * by length first: a redacted or cut text is another string, and comparing a text made of pieces
 * by content would first join it.
 */
export function knownBytesOf(recorder: ExchangeRecorder, exchange: Exchange, leftOut: LeftOut = NOTHING_LEFT_OUT): KnownBytes {
  const { requestBody } = recorder
  const sent = recorder.upstream
  // A text left out is '' in the record, and its bytes are the text: it is not made here either.
  const requestLeftOut = leftOut.request && Buffer.isBuffer(requestBody) && exchange.request.body === ''
  const sentLeftOut = leftOut.sent && sent?.bodyChunks !== undefined && exchange.upstream?.body === '' && exchange.model_body === ''
  const asReceived = requestLeftOut || (recorder.requestAscii && Buffer.isBuffer(requestBody) && sameText(exchange.request.body, recorder.requestText()))
  const sentText = sentLeftOut ? '' : recorder.sentBody()
  const kept = exchange.upstream?.body
  const asSent = sent?.bodyChunks !== undefined && sentText !== undefined && kept !== undefined && sameText(kept, sentText)
  const model = exchange.model_body
  const reply = recorder.replyJson
  const replyText = exchange.response.body
  const asWritten = reply !== undefined && replyText !== null && sameText(replyText, reply.text)
  const serverReply = exchange.upstream?.response_body
  const asRead = sent?.responseBytes !== undefined && serverReply != null && serverReply.length === sent.responseBody?.length && serverReply === sent.responseBody
  return {
    requestBody: asReceived && Buffer.isBuffer(requestBody) ? requestBody : undefined,
    sentBody: asSent ? sent.bodyChunks : undefined,
    responseBody: asWritten ? reply.bytes : undefined,
    upstreamReply: asRead ? sent.responseBytes : undefined,
    modelBodySent: kept !== undefined && model !== null && sameText(model, kept),
  }
}

/** The same string, compared by length first: a text made of pieces compared by content is joined first. */
const sameText = (a: string, b: string): boolean => a.length === b.length && a === b

function outcomeOf(
  status: number | null,
  isStream: boolean,
  finished: boolean,
  generation: GenerationFacts | undefined,
  error: CapturedError | null,
): ExchangeOutcomeKind {
  if (status !== null && status >= 400) return error?.type === 'upstream_error' ? 'upstream_error' : 'refused'
  switch (generation?.record.outcome) {
    case 'finished':
      return finished ? 'finished' : 'disconnected'
    case 'stopped':
    case 'shutdown':
      return 'stopped'
    case 'client_disconnected':
      return 'disconnected'
    case 'failed':
      return 'upstream_error'
    case undefined:
      // No generation of its own (a list, a key call, a deduplicated follower): the response tells.
      return finished ? (isStream && error !== null ? 'upstream_error' : 'finished') : 'disconnected'
  }
}

const REFUSED_CREDENTIAL: Record<string, ExchangeClient['kind']> = {
  missing_api_key: 'missing',
  invalid_api_key: 'unknown',
  expired_api_key: 'expired',
  revoked_api_key: 'revoked',
}

const LABELS: Record<ExchangeClient['kind'], string> = {
  key: '',
  missing: 'no key',
  unknown: 'unknown key',
  expired: 'expired key',
  revoked: 'revoked key',
}

function clientOf(principal: ExchangeRecorder['principal'], refused: RefusedKey | undefined, bearer: string | undefined, errorCode: string | null): ExchangeClient {
  if (principal !== undefined) {
    return { kind: 'key', key_id: principal.keyId, key_name: principal.keyName, key_hint: bearer === undefined ? null : secretHint(bearer, true), label: principal.keyName }
  }
  // Refused before or by the key check: a request refused earlier (Host, CORS) was never checked.
  const kind = REFUSED_CREDENTIAL[errorCode ?? ''] ?? (bearer === undefined ? 'missing' : 'unknown')
  if (refused !== undefined && (kind === 'expired' || kind === 'revoked')) {
    // A key that once worked: named, so the client still using it can be found. Its hint is a
    // Mortar key's, as the key list shows it; the exchange still belongs to no organization.
    const hint = bearer === undefined ? null : secretHint(bearer, true)
    return { kind, key_id: refused.keyId, key_name: refused.keyName, key_hint: hint, label: `${refused.keyName} (${LABELS[kind]})` }
  }
  return { kind, key_id: null, key_name: null, key_hint: bearer === undefined ? null : secretHint(bearer, false), label: LABELS[kind] }
}

function upstreamOf(recording: UpstreamRecording, body: string, final: boolean): UpstreamExchange {
  const frames = upstreamFrames(recording.frames.frames(), final)
  const headers: HeaderPairs = []
  const raw = recording.rawHeaders
  for (let i = 0; i + 1 < raw.length; i += 2) headers.push([(raw[i] ?? '').toLowerCase(), raw[i + 1] ?? ''])
  return { replica: recording.replica, body, status: recording.status, headers, frames, response_body: recording.responseBody }
}

/**
 * The frames as the model server sent them: the socket's pieces cut at the blank lines that end
 * events, each timed by the piece that completed it. A reply read whole (JSON) has no pieces, and
 * gets no splitter (nor its text decoder).
 */
function upstreamFrames(pieces: readonly RecordedFrame[], final: boolean): CapturedFrame[] {
  const frames: CapturedFrame[] = []
  if (pieces.length === 0) return frames
  const splitter = new SseFrameSplitter()
  let last = 0
  for (const piece of pieces) {
    last = piece.t_ms
    for (const raw of splitter.push(piece.raw)) frames.push({ t_ms: piece.t_ms, raw })
  }
  // While it runs, an event not yet complete waits for its next piece (a follower gets it then).
  if (final) {
    const rest = splitter.end()
    for (const raw of rest.frames) frames.push({ t_ms: last, raw })
    if (rest.partial !== '') frames.push({ t_ms: last, raw: rest.partial })
  }
  return frames
}

/** The frames as recorded when they are all strings (what the SSE writer writes); else decoded copies. */
function capturedFrames(frames: RecordedFrame[]): CapturedFrame[] {
  if (frames.every(isTextFrame)) return frames
  return frames.map((frame) => ({ t_ms: frame.t_ms, raw: textOf(frame.raw) }))
}

const isTextFrame = (frame: RecordedFrame): frame is CapturedFrame => typeof frame.raw === 'string'

function textOf(raw: string | Buffer): string {
  return typeof raw === 'string' ? raw : raw.toString('utf8')
}

function stringHeader(value: unknown): string | null {
  return typeof value === 'string' ? value : null
}

/** The error envelope the gateway answered with, read back from the body it sent. */
function errorOfBody(body: string | null): CapturedError | null {
  if (body === null) return null
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return null
  }
  const parsed = errorEnvelopeSchema.safeParse(json)
  if (!parsed.success) return null
  const { message, type, param, code } = parsed.data.error
  return { message, type: type ?? '', param: param ?? null, code: code ?? null }
}

/** The path without the query. */
export function pathOf(url: string | undefined): string {
  const path = url ?? ''
  const query = path.indexOf('?')
  return query === -1 ? path : path.slice(0, query)
}
