import type { FinishReason, Usage } from './chat-response'

/**
 * The events of `GET /v1/telemetry` (docs/telemetry.md): one JSON object per SSE `data:` line,
 * told apart by `type`. Shared so the desktop traffic view reads the same definition.
 */
interface RequestEventBase {
  /** The completion's ID (for a deduplicated request that shared a generation: the leader's). */
  id: string
  org: string
  session: string
  model: string
  /** ISO time of the event. */
  at: string
}

export interface RequestAcceptedEvent extends RequestEventBase {
  type: 'request.accepted'
  /** The name of the API key that sent it (its name only, never the key): which client it was. */
  key_name: string
  deployment: string
  stream: boolean
  /** The X-Mortar-Optimizer report. */
  optimizer: string
  /** The X-Mortar-Tool-Selector report, when named tool selection ran. */
  tool_selector: string | null
  /** The X-Mortar-Dedupe role, when the request asked for in-flight deduplication. */
  dedupe: 'leader' | 'shared' | null
}

export interface FirstTokenEvent extends RequestEventBase {
  type: 'request.first_token'
  /** Time from accepting the request to the first token of the reply. */
  ttft_ms: number
}

export interface RequestEndedEvent extends RequestEventBase {
  type: 'request.finished' | 'request.stopped' | 'request.client_disconnected' | 'request.shutdown' | 'request.failed'
  deployment: string
  upstream: string | null
  finish_reason: FinishReason | null
  /** The model server sent no finish reason (its stream ended at [DONE]); Mortar derived this one. */
  finish_reason_derived: boolean
  error_code: string | null
  usage: Usage
  /** Whether `usage` is the model server's own count or Mortar's estimate. */
  usage_source: 'upstream' | 'estimate'
  duration_ms: number
  /** From the model's prices in config.json; null when it has none. */
  cost_usd: number | null
}

/** Sent when the model server reported prompt tokens served from its cache. */
export interface CacheEvent extends RequestEventBase {
  type: 'cache'
  cached_tokens: number
  prompt_tokens: number
}

export type TelemetryEvent = RequestAcceptedEvent | FirstTokenEvent | RequestEndedEvent | CacheEvent
