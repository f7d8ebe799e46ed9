import { z } from 'zod'
import { usageSchema } from './chat-response'

/**
 * The events of `GET /v1/telemetry` (docs/telemetry.md): one JSON object per SSE `data:` line,
 * told apart by `type`. Zod schemas with the types inferred from them: the gateway builds these
 * objects, and the desktop traffic view parses what it reads against the same definition.
 */
const requestEventBase = {
  /** The completion's ID (for a deduplicated request that shared a generation: the leader's). */
  id: z.string(),
  org: z.string(),
  session: z.string(),
  model: z.string(),
  /** ISO time of the event. */
  at: z.string(),
  /** The gateway instance that served it, when gateways share a cluster (`mortar serve --redis`). */
  instance: z.string().optional(),
}

export const requestAcceptedEventSchema = z.object({
  type: z.literal('request.accepted'),
  ...requestEventBase,
  /** The name of the API key that sent it (its name only, never the key): which client it was. */
  key_name: z.string(),
  deployment: z.string(),
  stream: z.boolean(),
  /** The X-Mortar-Optimizer report. */
  optimizer: z.string(),
  /** The X-Mortar-Tool-Selector report, when named tool selection ran. */
  tool_selector: z.string().nullable(),
  /** The X-Mortar-Dedupe role, when the request asked for in-flight deduplication. */
  dedupe: z.enum(['leader', 'shared']).nullable(),
})

export const firstTokenEventSchema = z.object({
  type: z.literal('request.first_token'),
  ...requestEventBase,
  /** Time from accepting the request to the first token of the reply. */
  ttft_ms: z.number(),
})

export const requestEndedEventSchema = z.object({
  type: z.enum(['request.finished', 'request.stopped', 'request.client_disconnected', 'request.shutdown', 'request.failed']),
  ...requestEventBase,
  deployment: z.string(),
  upstream: z.string().nullable(),
  finish_reason: z.string().nullable(),
  /** The model server sent no finish reason (its stream ended at [DONE]); Mortar derived this one. */
  finish_reason_derived: z.boolean(),
  error_code: z.string().nullable(),
  usage: usageSchema,
  /** Whether `usage` is the model server's own count or Mortar's estimate. */
  usage_source: z.enum(['upstream', 'estimate']),
  duration_ms: z.number(),
  /** From the model's prices in config.json; null when it has none. */
  cost_usd: z.number().nullable(),
})

/** Sent when the model server reported prompt tokens served from its cache. */
export const cacheEventSchema = z.object({
  type: z.literal('cache'),
  ...requestEventBase,
  cached_tokens: z.number(),
  prompt_tokens: z.number(),
})

export const telemetryEventSchema = z.union([requestAcceptedEventSchema, firstTokenEventSchema, requestEndedEventSchema, cacheEventSchema])

export type RequestAcceptedEvent = z.output<typeof requestAcceptedEventSchema>
export type FirstTokenEvent = z.output<typeof firstTokenEventSchema>
export type RequestEndedEvent = z.output<typeof requestEndedEventSchema>
export type CacheEvent = z.output<typeof cacheEventSchema>
export type TelemetryEvent = z.output<typeof telemetryEventSchema>
