import { z } from 'zod'
import { usageSchema } from './chat-response'

/**
 * The traffic API (docs/traffic.md): every request to `/v1/*` as a captured exchange, the paths
 * and query parameters to list, fetch, follow, export and clear them. One source of truth for the
 * gateway that serves it and the UI that reads it; the types are inferred from these schemas.
 */

export const CAPTURE_MODES = ['off', 'memory', 'disk'] as const
export const captureModeSchema = z.enum(CAPTURE_MODES)
export type CaptureMode = z.output<typeof captureModeSchema>
export const DEFAULT_CAPTURE_MODE: CaptureMode = 'memory'

/** How an exchange ended, from the client's side. */
export const EXCHANGE_OUTCOMES = [
  /** Still running: headers or frames may still come. */
  'in_progress',
  /** Answered in full (a JSON reply, or a stream that ended with its finish chunk and `[DONE]`). */
  'finished',
  /** Stopped by POST /v1/generations/{id}/stop or the gateway's shutdown. */
  'stopped',
  /** The client hung up before the response ended. */
  'disconnected',
  /** The model server failed: a 502/503/504, or an error event mid-stream. */
  'upstream_error',
  /** Mortar answered with an error of its own (400, 401, 404, 405, 413, 429, 500…). */
  'refused',
] as const
export const exchangeOutcomeSchema = z.enum(EXCHANGE_OUTCOMES)
export type ExchangeOutcomeKind = z.output<typeof exchangeOutcomeSchema>

/** The OpenAI error envelope's inner object, as sent (codes are listed in docs/api-decisions.md). */
export const capturedErrorSchema = z.object({
  message: z.string(),
  type: z.string(),
  param: z.string().nullable(),
  code: z.string().nullable(),
})
export type CapturedError = z.output<typeof capturedErrorSchema>

/**
 * Who sent it. `key`: a valid key (its id, name and hint — never the key). Anything else is a
 * refused credential: `missing` (none sent), `unknown` (no key matches), `expired`, `revoked`;
 * their `key_hint` is what the caller sent reduced to a hint, or null when nothing was sent.
 */
export const CLIENT_KINDS = ['key', 'missing', 'unknown', 'expired', 'revoked'] as const
export const exchangeClientSchema = z.object({
  kind: z.enum(CLIENT_KINDS),
  key_id: z.string().nullable(),
  key_name: z.string().nullable(),
  key_hint: z.string().nullable(),
  /** What a list shows: the key's name, or "no key" / "unknown key" / "expired key" / "revoked key". */
  label: z.string(),
})
export type ExchangeClient = z.output<typeof exchangeClientSchema>

/** One piece of a stream, exactly as written (or read), and when: ms since the request arrived. */
export const capturedFrameSchema = z.object({
  t_ms: z.number(),
  raw: z.string(),
})
export type CapturedFrame = z.output<typeof capturedFrameSchema>

/** Header name/value pairs in the order they were sent; names lower-cased. */
export const headerPairsSchema = z.array(z.tuple([z.string(), z.string()]))
export type HeaderPairs = z.output<typeof headerPairsSchema>

/**
 * Set when the exchange was larger than the per-exchange limit: bodies and frames past the limit
 * were cut (never the metadata), and this says how much there was.
 */
export const truncationSchema = z.object({
  /** The exchange's size before cutting, in bytes of text. */
  original_bytes: z.number(),
  kept_bytes: z.number(),
  /** Frames (client side and model-server side together) not kept. */
  dropped_frames: z.number(),
})
export type Truncation = z.output<typeof truncationSchema>

/** The fields a list row shows: everything but headers, bodies and frames. */
export const exchangeSummarySchema = z.object({
  id: z.string(),
  /** ISO time the request arrived. */
  started_at: z.string(),
  method: z.string(),
  /** The path without the query, e.g. /v1/chat/completions. */
  endpoint: z.string(),
  /** The response status; null while no response has started. */
  status: z.number().nullable(),
  outcome: exchangeOutcomeSchema,
  /** The finish reason of a finished completion. */
  finish_reason: z.string().nullable(),
  client: exchangeClientSchema,
  /** The key's organization; null when no valid key was sent. */
  org: z.string().nullable(),
  /** X-Request-Id of the response. */
  request_id: z.string(),
  /** The chat completion's ID (X-Mortar-Request-Id), when one was made. */
  completion_id: z.string().nullable(),
  model: z.string().nullable(),
  deployment: z.string().nullable(),
  /** The model server (replica) that answered, for upstream deployments. */
  replica: z.string().nullable(),
  session: z.string().nullable(),
  stream: z.boolean().nullable(),
  /** From the request's arrival to the first token of the reply. */
  ttft_ms: z.number().nullable(),
  /** From the request's arrival to the response's end; null while running. */
  duration_ms: z.number().nullable(),
  usage: usageSchema.nullable(),
  /** Whether `usage` is the model server's own count or Mortar's estimate. */
  usage_source: z.enum(['upstream', 'estimate']).nullable(),
  /** Prompt tokens the model server reported served from its prefix cache. */
  cached_tokens: z.number().nullable(),
  /** The error envelope's inner object, for refused and failed exchanges. */
  error: capturedErrorSchema.nullable(),
  truncated: truncationSchema.nullable(),
  /** What the exchange costs the store, in bytes (its texts' UTF-8 length). */
  size_bytes: z.number(),
  /** The gateway instance that served it, when gateways share a cluster (`mortar serve --redis`). */
  instance: z.string().optional(),
})
export type ExchangeSummary = z.output<typeof exchangeSummarySchema>

/** What the model server was sent and what it answered, for upstream deployments. */
export const upstreamExchangeSchema = z.object({
  replica: z.string(),
  /** The body exactly as sent to the model server. */
  body: z.string(),
  status: z.number().nullable(),
  headers: headerPairsSchema,
  /** Its SSE frames as received (blank-line separated events), with times. */
  frames: z.array(capturedFrameSchema),
  /** Its body when it did not stream (a JSON reply or an error). */
  response_body: z.string().nullable(),
})
export type UpstreamExchange = z.output<typeof upstreamExchangeSchema>

/** One exchange, whole. */
export const exchangeSchema = exchangeSummarySchema.extend({
  request: z.object({
    /** Path and query as requested. */
    url: z.string(),
    /** As received, except credentials (Authorization, x-api-key…), which are reduced to the key's hint. */
    headers: headerPairsSchema,
    /** The body exactly as received (UTF-8 text); '' when there was none. */
    body: z.string(),
  }),
  /**
   * "What the model saw": the request after tool selection and the optimizer — for an upstream
   * deployment the body exactly as the model server received it, for the scripted model the
   * same JSON it would have been sent. Null when no generation started (refusals).
   */
  model_body: z.string().nullable(),
  response: z.object({
    headers: headerPairsSchema,
    /** Every SSE frame as sent, with times; [] for responses that are not streams. */
    frames: z.array(capturedFrameSchema),
    /** The body of a response that is not a stream (JSON reply or error envelope). */
    body: z.string().nullable(),
  }),
  upstream: upstreamExchangeSchema.nullable(),
})
export type Exchange = z.output<typeof exchangeSchema>

// ---- The HTTP API ----

export const TRAFFIC_BASE = '/v1/traffic'
export const TrafficPath = {
  /** GET: list (ExchangeListQuery → ExchangeList). DELETE: clear the caller's exchanges (→ ClearResult). */
  exchanges: `${TRAFFIC_BASE}/exchanges`,
  /** GET: one exchange, whole. */
  exchange: (id: string) => `${TRAFFIC_BASE}/exchanges/${encodeURIComponent(id)}`,
  /** GET: server-sent events following one exchange (ExchangeFollowEvent): as it stands, each new frame, its end. */
  exchangeLive: (id: string) => `${TRAFFIC_BASE}/exchanges/${encodeURIComponent(id)}/live`,
  /** GET: server-sent events, one TrafficEvent per `data:` line, from now on. */
  live: `${TRAFFIC_BASE}/live`,
  /** PUT: change the capture mode of the running gateway (SetCaptureModeRequest → CaptureStatus); owner and admin keys. */
  mode: `${TRAFFIC_BASE}/mode`,
  /** GET: HAR 1.2 (format=har) or JSON Lines of whole exchanges (format=jsonl); ExportQuery. */
  export: `${TRAFFIC_BASE}/export`,
  /** GET: the capture mode, the limits and what the store holds (CaptureStatus). */
  status: `${TRAFFIC_BASE}/status`,
} as const

export const STATUS_CLASSES = ['2xx', '3xx', '4xx', '5xx'] as const
export const DEFAULT_LIST_LIMIT = 50
export const MAX_LIST_LIMIT = 500

/** A comma-separated list in a query parameter: `outcome=refused,upstream_error`. */
const csv = <T extends z.ZodType<unknown, string>>(item: T) =>
  z
    .string()
    .transform((text) => text.split(',').map((part) => part.trim()).filter((part) => part !== ''))
    .pipe(z.array(item))

const isoTime = z.string().refine((text) => !Number.isNaN(Date.parse(text)), { error: 'must be an ISO 8601 time' })

/** The filters shared by the list and the export. All are optional; values of one filter are OR-ed. */
export const exchangeFilterSchema = z.object({
  status: csv(z.enum(STATUS_CLASSES)).optional(),
  outcome: csv(exchangeOutcomeSchema).optional(),
  model: csv(z.string()).optional(),
  session: csv(z.string()).optional(),
  /** Key IDs, or `none` for requests without a valid key. */
  client: csv(z.string()).optional(),
  endpoint: csv(z.string()).optional(),
  /** Started at or after (ISO 8601). */
  since: isoTime.optional(),
  /** Started before (ISO 8601). */
  until: isoTime.optional(),
  /** Full-text search over the request body, the model body and the reply (case-insensitive substring). */
  q: z.string().max(1_000).optional(),
})
export type ExchangeFilter = z.output<typeof exchangeFilterSchema>
/** The query string as the UI writes it (every value a string). */
export type ExchangeFilterParams = z.input<typeof exchangeFilterSchema>

export const exchangeListQuerySchema = exchangeFilterSchema.extend({
  limit: z.coerce.number().int().min(1).max(MAX_LIST_LIMIT).default(DEFAULT_LIST_LIMIT),
  /** `next_cursor` of the previous page. */
  cursor: z.string().max(200).optional(),
})
export type ExchangeListQuery = z.output<typeof exchangeListQuerySchema>
export type ExchangeListParams = z.input<typeof exchangeListQuerySchema>

/** Newest first. */
export const exchangeListSchema = z.object({
  object: z.literal('list'),
  data: z.array(exchangeSummarySchema),
  /** Pass as `cursor` for the next (older) page; null on the last page. */
  next_cursor: z.string().nullable(),
})
export type ExchangeList = z.output<typeof exchangeListSchema>

export const EXPORT_FORMATS = ['har', 'jsonl'] as const
export const exportQuerySchema = exchangeFilterSchema.extend({
  format: z.enum(EXPORT_FORMATS),
  /** Exchange IDs to export; without it, every exchange the filters match (newest first). */
  ids: csv(z.string()).optional(),
})
export type ExportQuery = z.output<typeof exportQuerySchema>
export type ExportParams = z.input<typeof exportQuerySchema>

export const clearResultSchema = z.object({ deleted: z.number() })
export type ClearResult = z.output<typeof clearResultSchema>

export const captureLimitsSchema = z.object({
  /** The store's byte budget (all exchanges' texts together). */
  max_bytes: z.number(),
  /** At most this many exchanges. */
  max_exchanges: z.number(),
  /** One exchange above this is truncated (with a marker). */
  max_exchange_bytes: z.number(),
  /** Disk only: exchanges older than this many days are deleted. */
  retention_days: z.number().nullable(),
})
export type CaptureLimits = z.output<typeof captureLimitsSchema>

export const captureStatusSchema = z.object({
  mode: captureModeSchema,
  limits: captureLimitsSchema,
  /** All organizations together. */
  exchanges: z.number(),
  bytes: z.number(),
  /** Exchanges evicted to stay within the limits since the gateway started. */
  evicted: z.number(),
})
export type CaptureStatus = z.output<typeof captureStatusSchema>

/** PUT /v1/traffic/mode. */
export const setCaptureModeRequestSchema = z.object({ mode: captureModeSchema })
export type SetCaptureModeRequest = z.output<typeof setCaptureModeRequestSchema>

/**
 * The events of GET /v1/traffic/live, each with the exchange's summary as it stands:
 * `exchange.started` once the gateway knows who sent it (or, refused before that, when its
 * response begins), `exchange.updated` while it runs (model and session decided, the response's
 * status, the first token), `exchange.ended` with the final summary.
 */
export const trafficEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('exchange.started'), exchange: exchangeSummarySchema }),
  z.object({ type: z.literal('exchange.updated'), exchange: exchangeSummarySchema }),
  z.object({ type: z.literal('exchange.ended'), exchange: exchangeSummarySchema }),
  z.object({ type: z.literal('exchanges.cleared') }),
])
export type TrafficEvent = z.output<typeof trafficEventSchema>

/**
 * The events of GET /v1/traffic/exchanges/{id}/live. A running exchange: first
 * `exchange.snapshot` (the whole exchange as it stands), then `exchange.frames` with the frames
 * written to the client (`frames`) and read from the model server (`upstream_frames`) since the
 * last event, in order — or a new `exchange.snapshot` that replaces everything (its headers went
 * out, the model server answered) — and last `exchange.ended`, the final record, after which the
 * stream closes. An exchange that has already ended gets `exchange.ended` at once.
 */
export const exchangeFollowEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('exchange.snapshot'), exchange: exchangeSchema }),
  z.object({ type: z.literal('exchange.frames'), frames: z.array(capturedFrameSchema), upstream_frames: z.array(capturedFrameSchema) }),
  z.object({ type: z.literal('exchange.ended'), exchange: exchangeSchema }),
])
export type ExchangeFollowEvent = z.output<typeof exchangeFollowEventSchema>

/** The query string of a list or export request, from typed parameters (for the UI). */
export function trafficQueryString(params: Readonly<Record<string, string | number | undefined>>): string {
  const search = new URLSearchParams()
  for (const [name, value] of Object.entries(params)) if (value !== undefined && value !== '') search.set(name, String(value))
  const text = search.toString()
  return text === '' ? '' : `?${text}`
}
