// A captured exchange (the gateway's record of a request any client made, from the traffic API)
// read into the shapes the inspector already shows for the playground's own requests: the
// recorded exchange, its frames, the assembled reply and the outcome. One inspector serves both.
import { z } from 'zod'
import { MortarHeader } from '../../../../shared/api/headers'
import type { CapturedFrame, Exchange, HeaderPairs } from '../../../../shared/api/traffic'
import { anthropicMessageAsCompletion } from './anthropic-events'
import { assembleCompletion, assembleFrames, assembleResponse, assembleTextCompletion, type AssembledReply } from './assemble-reply'
import type { ExchangeOutcome, RecordedExchange } from './exchange'
import { completionBodySchema, textCompletionBodySchema } from './reply-bodies'
import { StreamFrameRecorder, type StreamFrame } from './stream-frames'

/** The headers a client sets that change what the gateway does: what a replay must send again. */
const REPLAYED_HEADERS: ReadonlySet<string> = new Set([
  MortarHeader.deployment,
  MortarHeader.session,
  MortarHeader.optimize,
  MortarHeader.toolSelect,
  MortarHeader.dedupe,
  MortarHeader.idempotencyKey,
])

/** The request headers worth sending again (Mortar's own and Idempotency-Key), by lower-case name. */
export function replayedHeaders(headers: HeaderPairs): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of headers) if (REPLAYED_HEADERS.has(name.toLowerCase())) out[name.toLowerCase()] = value
  return out
}

const jsonObjectSchema = z.record(z.string(), z.unknown())

/** A JSON body as an object, or null when it is not a JSON object (an `invalid_json` refusal). */
export function parseJsonObject(text: string | null): Record<string, unknown> | null {
  if (text === null || text === '') return null
  try {
    const value = jsonObjectSchema.safeParse(JSON.parse(text))
    return value.success ? value.data : null
  } catch {
    return null
  }
}

/**
 * Captured frames as the inspector's StreamFrames. Each captured piece goes through the same
 * recorder as a live stream, so a piece holding two events, or half of one, is cut the same way.
 */
export function streamFramesOf(captured: readonly CapturedFrame[], endMs: number | null): StreamFrame[] {
  const recorder = new StreamFrameRecorder()
  const frames: StreamFrame[] = []
  for (const piece of captured) frames.push(...recorder.push(piece.raw, piece.t_ms))
  const last = captured.at(-1)?.t_ms ?? 0
  frames.push(...recorder.end(Math.max(last, endMs ?? last)))
  return frames
}

/** The reply a JSON body or a stream's frames add up to. */
function replyOf(frames: readonly StreamFrame[], body: string | null, ok: boolean): AssembledReply {
  if (frames.length > 0) return assembleFrames(frames)
  const completion = ok ? parseJsonObject(body) : null
  if (completion?.object === 'response') return assembleResponse(completion)
  if (completion?.object === 'text_completion') {
    const text = textCompletionBodySchema.safeParse(completion)
    if (text.success) return assembleTextCompletion(text.data)
  }
  const message = completion?.type === 'message' ? anthropicMessageAsCompletion(completion) : undefined
  if (message !== undefined) return assembleCompletion(message)
  // A body that is no completion after all (no first choice's message) shows raw.
  const chat = completionBodySchema.safeParse(completion)
  return chat.success ? assembleCompletion(chat.data) : assembleFrames([])
}

/** The captured outcome, as the inspector's outcome badge names it. */
export function capturedOutcome(exchange: Exchange, reply: AssembledReply): ExchangeOutcome {
  const error = exchange.error
  switch (exchange.outcome) {
    case 'in_progress':
      return exchange.status === null ? { kind: 'sending' } : { kind: 'streaming' }
    case 'finished':
      return { kind: 'finished', finishReason: exchange.finish_reason ?? reply.finishReason }
    case 'stopped':
      return { kind: 'stopped', by: reply.stoppedBy ?? 'unknown' }
    case 'disconnected':
      return { kind: 'client_disconnected' }
    case 'upstream_error':
      // Before the headers a model server's failure is an HTTP status; after, an error event.
      if (exchange.status !== null && exchange.status >= 400) {
        return { kind: 'http_error', status: exchange.status, code: error?.code ?? null, message: error?.message ?? '' }
      }
      return { kind: 'upstream_error', code: error?.code ?? reply.error?.code ?? null, message: error?.message ?? reply.error?.message ?? '' }
    case 'refused':
      return { kind: 'http_error', status: exchange.status ?? 0, code: error?.code ?? null, message: error?.message ?? '' }
  }
}

/** What the inspector shows of one side of a captured exchange: the client's or the model server's. */
export interface CapturedSide {
  frames: StreamFrame[]
  reply: AssembledReply
  /** The body of a reply that was not a stream. */
  bodyText: string | null
  status: number | null
  headers: HeaderPairs
}

export interface CapturedInspection {
  /** The client's side, in the playground's record shape (so exports and metrics work unchanged). */
  recorded: RecordedExchange
  client: CapturedSide
  /** What the model server sent, for upstream deployments. */
  upstream: (CapturedSide & { replica: string; body: string }) | null
  outcome: ExchangeOutcome
  /** The request body as received, and as the model saw it (null when no generation started). */
  receivedBody: string
  modelBody: string | null
  requestHeaders: HeaderPairs
}

/**
 * Reads a captured exchange for the inspector. `baseUrl` makes the captured path absolute
 * (exports print a full URL); the request is recorded with only the headers a replay sends.
 */
export function inspectCaptured(exchange: Exchange, baseUrl: string): CapturedInspection {
  const ok = exchange.status !== null && exchange.status < 400
  const frames = streamFramesOf(exchange.response.frames, exchange.duration_ms)
  const reply = replyOf(frames, exchange.response.body, ok)
  const startedAt = Date.parse(exchange.started_at)
  const responseAt = exchange.response.frames[0]?.t_ms ?? exchange.duration_ms ?? 0
  const recorded: RecordedExchange = {
    id: exchange.id,
    request: {
      url: new URL(exchange.request.url, baseUrl).href,
      headers: replayedHeaders(exchange.request.headers),
      body: parseJsonObject(exchange.request.body) ?? {},
      method: exchange.method,
      bodyText: exchange.request.body,
    },
    sentAt: Number.isNaN(startedAt) ? 0 : startedAt,
    response: exchange.status === null ? null : { status: exchange.status, headers: exchange.response.headers, at: responseAt },
    frames,
    bodyText: exchange.response.body,
    end:
      exchange.outcome === 'in_progress'
        ? null
        : { at: exchange.duration_ms ?? responseAt, reason: exchange.outcome === 'disconnected' ? 'client_aborted' : 'eof' },
    stopRequested: exchange.outcome === 'stopped',
  }
  const upstream = exchange.upstream
  let upstreamSide: CapturedInspection['upstream'] = null
  if (upstream !== null) {
    const upstreamFrames = streamFramesOf(upstream.frames, exchange.duration_ms)
    upstreamSide = {
      replica: upstream.replica,
      body: upstream.body,
      frames: upstreamFrames,
      reply: replyOf(upstreamFrames, upstream.response_body, upstream.status !== null && upstream.status < 400),
      bodyText: upstream.response_body,
      status: upstream.status,
      headers: upstream.headers,
    }
  }
  return {
    recorded,
    client: { frames, reply, bodyText: exchange.response.body, status: exchange.status, headers: exchange.response.headers },
    upstream: upstreamSide,
    outcome: capturedOutcome(exchange, reply),
    receivedBody: exchange.request.body,
    modelBody: exchange.model_body,
    requestHeaders: exchange.request.headers,
  }
}
