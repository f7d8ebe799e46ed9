import type { Usage } from '../../../../shared/api/chat-response'
import { telemetryEventSchema, type RequestEndedEvent, type TelemetryEvent } from '../../../../shared/api/telemetry'
import { eventParser } from '../event-parser'

/**
 * The traffic view's table, folded from `GET /v1/telemetry` events (docs/telemetry.md): one row
 * per request, updated as its events arrive. Pure and immutable, so React can compare states;
 * bounded, so a gateway that runs for days cannot grow the window's memory without end.
 */

export type TrafficStatus = 'running' | 'finished' | 'stopped' | 'client_disconnected' | 'shutdown' | 'failed'

export interface TrafficRow {
  /** Unique per row: the completion ID, with a suffix for requests that shared a generation. */
  key: string
  /** The completion ID: what the stop endpoint takes. */
  id: string
  status: TrafficStatus
  /** ISO time of the first event seen for it. */
  at: string
  model: string
  session: string
  /** The name of the API key that sent it (request.accepted's `key_name`): which client it was. */
  keyName: string | null
  deployment: string | null
  stream: boolean | null
  optimizer: string | null
  toolSelector: string | null
  dedupe: 'leader' | 'shared' | null
  ttftMs: number | null
  durationMs: number | null
  usage: Usage | null
  usageSource: 'upstream' | 'estimate' | null
  costUsd: number | null
  upstream: string | null
  finishReason: string | null
  /** The model server sent no finish reason; Mortar derived it. */
  finishReasonDerived: boolean
  errorCode: string | null
  cachedTokens: number | null
  /** Every event seen for the row, in order (a handful per request). */
  events: TelemetryEvent[]
}

export interface TrafficState {
  /** Oldest first. */
  rows: readonly TrafficRow[]
  /** Events folded so far, for "n events" in the status line. */
  eventCount: number
}

export const TRAFFIC_ROW_LIMIT = 5_000

export const emptyTraffic: TrafficState = { rows: [], eventCount: 0 }

const ENDED_STATUS: Record<RequestEndedEvent['type'], TrafficStatus> = {
  'request.finished': 'finished',
  'request.stopped': 'stopped',
  'request.client_disconnected': 'client_disconnected',
  'request.shutdown': 'shutdown',
  'request.failed': 'failed',
}

function newRow(event: TelemetryEvent, key: string): TrafficRow {
  return {
    key,
    id: event.id,
    status: 'running',
    at: event.at,
    model: event.model,
    session: event.session,
    keyName: null,
    deployment: null,
    stream: null,
    optimizer: null,
    toolSelector: null,
    dedupe: null,
    ttftMs: null,
    durationMs: null,
    usage: null,
    usageSource: null,
    costUsd: null,
    upstream: null,
    finishReason: null,
    finishReasonDerived: false,
    errorCode: null,
    cachedTokens: null,
    events: [],
  }
}

function update(row: TrafficRow, event: TelemetryEvent): TrafficRow {
  const next: TrafficRow = { ...row, events: [...row.events, event] }
  switch (event.type) {
    case 'request.accepted':
      return {
        ...next,
        at: event.at,
        // Lenient: a gateway from before key names sends none.
        keyName: typeof event.key_name === 'string' ? event.key_name : null,
        deployment: event.deployment,
        stream: event.stream,
        optimizer: event.optimizer,
        toolSelector: event.tool_selector,
        dedupe: event.dedupe,
      }
    case 'request.first_token':
      return { ...next, ttftMs: event.ttft_ms }
    case 'cache':
      return { ...next, cachedTokens: event.cached_tokens }
    default:
      return {
        ...next,
        status: ENDED_STATUS[event.type],
        deployment: event.deployment,
        upstream: event.upstream,
        finishReason: event.finish_reason,
        // Lenient: a gateway from before derived finish reasons sends none.
        finishReasonDerived: event.finish_reason_derived === true,
        errorCode: event.error_code,
        usage: event.usage,
        usageSource: event.usage_source,
        durationMs: event.duration_ms,
        costUsd: event.cost_usd,
      }
  }
}

export function applyTelemetryEvent(state: TrafficState, event: TelemetryEvent, limit = TRAFFIC_ROW_LIMIT): TrafficState {
  const rows = [...state.rows]
  const eventCount = state.eventCount + 1
  if (event.type === 'request.accepted') {
    // A request that shared another's generation carries the leader's ID: it gets its own row.
    const key = event.dedupe === 'shared' ? `${event.id}#${eventCount}` : event.id
    if (!rows.some((row) => row.key === key)) {
      rows.push(update(newRow(event, key), event))
      return { rows: rows.length > limit ? rows.slice(rows.length - limit) : rows, eventCount }
    }
  }
  let matched = false
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]
    if (row === undefined || row.id !== event.id) continue
    // A shared row follows its leader's ending, but keeps its own acceptance.
    if (row.dedupe === 'shared' && event.type === 'request.accepted') continue
    rows[i] = update(row, event)
    matched = true
  }
  // Events of a request accepted before we subscribed still make a row.
  if (!matched) rows.push(update(newRow(event, event.id), event))
  return { rows: rows.length > limit ? rows.slice(rows.length - limit) : rows, eventCount }
}

export interface TrafficFilter {
  /** Case-insensitive substring of the session. */
  session: string
  /** Exact model ID, or '' for all. */
  model: string
  /** Only requests still running. */
  runningOnly: boolean
}

export const noTrafficFilter: TrafficFilter = { session: '', model: '', runningOnly: false }

/** Filtered rows, newest first. */
export function visibleRows(rows: readonly TrafficRow[], filter: TrafficFilter): TrafficRow[] {
  const session = filter.session.trim().toLowerCase()
  const out: TrafficRow[] = []
  for (let i = rows.length - 1; i >= 0; i--) {
    const row = rows[i]
    if (row === undefined) continue
    if (session !== '' && !row.session.toLowerCase().includes(session)) continue
    if (filter.model !== '' && row.model !== filter.model) continue
    if (filter.runningOnly && row.status !== 'running') continue
    out.push(row)
  }
  return out
}

/** The distinct models seen, for the model filter. */
export function modelsSeen(rows: readonly TrafficRow[]): string[] {
  return [...new Set(rows.map((row) => row.model))].sort()
}

/** Parse one `data:` line of the telemetry stream; undefined for anything that is not an event. */
export const parseTelemetryEvent = eventParser(telemetryEventSchema)
