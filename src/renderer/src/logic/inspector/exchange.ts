import type { AssembledReply } from './assemble-reply'
import type { StreamFrame } from './stream-frames'
import { readErrorEnvelope, type ReadError } from './stream-chunk'

/** The request as sent, minus the Authorization header (which is never recorded). */
export interface RecordedRequest {
  /** Full URL of the endpoint, e.g. http://127.0.0.1:7313/v1/chat/completions */
  url: string
  /** Request headers besides Authorization and Content-Type, as sent. */
  headers: Record<string, string>
  body: Record<string, unknown>
  /** A captured request's method (the playground's are all POST). */
  method?: string
  /** A captured request's body exactly as received ('' for none): what an export sends again. */
  bodyText?: string
}

export interface RecordedResponse {
  status: number
  /** Response headers in the order the browser gives them, names lower-cased. */
  headers: Array<[string, string]>
  /** Milliseconds from sending to the response headers. */
  at: number
}

export type ExchangeEndReason = 'eof' | 'client_aborted' | 'network_error'

/**
 * One request made from the playground and everything observed about it. All times are
 * milliseconds since `sentAt` (wall clock, epoch ms), so the record is plain JSON.
 */
export interface RecordedExchange {
  id: string
  request: RecordedRequest
  sentAt: number
  response: RecordedResponse | null
  frames: StreamFrame[]
  /** The body of a response that was not a stream (a JSON reply or an error). */
  bodyText: string | null
  end: { at: number; reason: ExchangeEndReason; message?: string } | null
  /** The Stop button was used (the gateway was asked to stop the generation). */
  stopRequested: boolean
}

export type ExchangeOutcome =
  | { kind: 'sending' }
  | { kind: 'streaming' }
  | { kind: 'finished'; finishReason: string | null }
  /**
   * Ended with [DONE] but no finish chunk: stopped by this window's Stop, by a stop call from
   * elsewhere, or by the gateway's shutdown (`unknown`: a gateway that did not say).
   */
  | { kind: 'stopped'; by: 'this_window' | 'stop_call' | 'shutdown' | 'unknown' }
  /** This client hung up (the Abort button); the gateway then stops the generation. */
  | { kind: 'client_disconnected' }
  /** An error event mid-stream; the stream then closed without [DONE]. */
  | { kind: 'upstream_error'; code: string | null; message: string }
  /** The stream closed without [DONE] and without an error event. */
  | { kind: 'incomplete' }
  | { kind: 'http_error'; status: number; code: string | null; message: string }
  | { kind: 'network_error'; message: string }

export function headerValue(headers: ReadonlyArray<[string, string]>, name: string): string | undefined {
  const lower = name.toLowerCase()
  return headers.find(([key]) => key.toLowerCase() === lower)?.[1]
}

export function isEventStream(response: RecordedResponse | null): boolean {
  return (headerValue(response?.headers ?? [], 'content-type') ?? '').includes('text/event-stream')
}

function parseErrorBody(text: string | null): ReadError | null {
  if (text === null) return null
  try {
    return readErrorEnvelope(JSON.parse(text))
  } catch {
    return null
  }
}

/** How the exchange ended (or where it stands), from what was observed. */
export function exchangeOutcome(exchange: RecordedExchange, reply: AssembledReply): ExchangeOutcome {
  const { response, end } = exchange
  if (response === null) {
    if (end === null) return { kind: 'sending' }
    if (end.reason === 'client_aborted') return { kind: 'client_disconnected' }
    return { kind: 'network_error', message: end.message ?? 'The request failed.' }
  }
  if (response.status >= 400) {
    const error = parseErrorBody(exchange.bodyText)
    return {
      kind: 'http_error',
      status: response.status,
      code: error?.code ?? null,
      message: error?.message ?? exchange.bodyText ?? '',
    }
  }
  if (reply.error !== null) return { kind: 'upstream_error', code: reply.error.code ?? null, message: reply.error.message }
  if (!isEventStream(response)) {
    if (end === null) return { kind: 'streaming' }
    if (end.reason === 'client_aborted') return { kind: 'client_disconnected' }
    if (end.reason === 'network_error') return { kind: 'network_error', message: end.message ?? 'The response was cut.' }
    // A stopped non-streamed request answers finish_reason "stop"; only the stop call tells it apart.
    return exchange.stopRequested ? { kind: 'stopped', by: 'this_window' } : { kind: 'finished', finishReason: reply.finishReason }
  }
  if (reply.sawDone) {
    if (reply.finishReason !== null) return { kind: 'finished', finishReason: reply.finishReason }
    // The gateway's note wins over our own Stop: a shutdown may overtake a stop call.
    if (reply.stoppedBy === 'shutdown') return { kind: 'stopped', by: 'shutdown' }
    return { kind: 'stopped', by: exchange.stopRequested ? 'this_window' : (reply.stoppedBy ?? 'unknown') }
  }
  if (end === null) return { kind: 'streaming' }
  if (end.reason === 'client_aborted') return { kind: 'client_disconnected' }
  return { kind: 'incomplete' }
}

export function isRunning(outcome: ExchangeOutcome): boolean {
  return outcome.kind === 'sending' || outcome.kind === 'streaming'
}

export interface ExchangeMetrics {
  /** First reply text or tool-call piece, from sending (client-side). */
  ttftMs: number | null
  /** Sending to the end (or to `now` while running). */
  durationMs: number | null
  completionTokens: number | null
  /** `usage`: the usage chunk's count; `chunks`: counted deltas (one token each for most servers). */
  tokenSource: 'usage' | 'chunks' | null
  /** Generation rate after the first token. */
  tokensPerSecond: number | null
}

export function exchangeMetrics(exchange: RecordedExchange, reply: AssembledReply, now: number): ExchangeMetrics {
  const durationMs = exchange.end?.at ?? Math.max(0, now)
  const fromUsage = reply.usage?.completion_tokens
  const completionTokens = fromUsage ?? (reply.deltas > 0 ? reply.deltas : null)
  const tokenSource = fromUsage !== undefined ? 'usage' : reply.deltas > 0 ? 'chunks' : null
  let tokensPerSecond: number | null = null
  if (completionTokens !== null && reply.firstDeltaAt !== null && reply.lastDeltaAt !== null) {
    // The first token's time is TTFT; the rate counts the tokens after it over the time after it.
    const seconds = (reply.lastDeltaAt - reply.firstDeltaAt) / 1000
    if (seconds > 0 && completionTokens > 1) tokensPerSecond = (completionTokens - 1) / seconds
  }
  return { ttftMs: reply.firstDeltaAt, durationMs, completionTokens, tokenSource, tokensPerSecond }
}
