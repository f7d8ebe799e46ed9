// The rows of the Traffic list, from the traffic API: a page read from the store, then kept
// current by the live events. Filters are sent to the API as its query parameters; a live event
// is held to the same filters here, except the full-text search, which needs the bodies (a
// search is re-run instead). Pure.
import { matchesFilter as matchesExchangeFilter } from '../../../shared/api/exchange-filter'
import { exchangeFilterSchema, type ExchangeFilterParams, type ExchangeSummary, type TrafficEvent } from '../../../shared/api/traffic'

/** The filter bar's fields; '' means "any". */
export interface TrafficFilterForm {
  status: '' | '2xx' | '3xx' | '4xx' | '5xx'
  outcome: '' | ExchangeSummary['outcome']
  model: string
  session: string
  /** A key ID, or `none` for requests without a valid key. */
  client: string
  endpoint: string
  /** The time range, as a `datetime-local` field holds it: local time, to the second. */
  since: string
  until: string
  /** Full-text search over request and reply text. */
  q: string
}

export const noFilter: TrafficFilterForm = { status: '', outcome: '', model: '', session: '', client: '', endpoint: '', since: '', until: '', q: '' }
const TIME_FIELDS: ReadonlySet<keyof TrafficFilterForm> = new Set(['since', 'until'])
const FILTER_FIELDS = Object.keys(noFilter).filter((name): name is keyof TrafficFilterForm => name in noFilter)

/** The form as the API's query parameters (empty fields left out). */
export function filterParams(form: TrafficFilterForm): ExchangeFilterParams {
  const params: ExchangeFilterParams = {}
  for (const name of FILTER_FIELDS) {
    const text = form[name].trim()
    if (text === '') continue
    if (!TIME_FIELDS.has(name)) params[name] = text
    else {
      // A local time without a zone is read as local time; the API wants an ISO instant.
      const at = new Date(text)
      if (!Number.isNaN(at.getTime())) params[name] = at.toISOString()
    }
  }
  return params
}

export const isSearching = (form: TrafficFilterForm): boolean => form.q.trim() !== ''

/** Whether a row meets the filters that a summary can be judged by (all but the search), as the API judges it. */
export function matchesFilter(row: ExchangeSummary, form: TrafficFilterForm): boolean {
  const filter = exchangeFilterSchema.safeParse(filterParams(form))
  return !filter.success || matchesExchangeFilter(row, { ...filter.data, q: undefined })
}

/**
 * Live events grow the list to at most this many rows (the oldest go); older ones are a "load
 * older" away. Rows the user paged in beyond it stay: the list then keeps that many.
 */
export const MAX_ROWS = 2_000

const newestFirst = (a: ExchangeSummary, b: ExchangeSummary): number => (a.started_at < b.started_at ? 1 : a.started_at > b.started_at ? -1 : 0)

/** The rows after a live event (newest first). A row the filters exclude is not added: the same rows come back. */
export function applyTrafficEvent<Rows extends readonly ExchangeSummary[]>(rows: Rows, event: TrafficEvent, form: TrafficFilterForm): Rows | ExchangeSummary[] {
  if (event.type === 'exchanges.cleared') return []
  const row = event.exchange
  const at = rows.findIndex((r) => r.id === row.id)
  if (at >= 0) {
    const next = rows.slice()
    next[at] = row
    return next
  }
  if (isSearching(form) || !matchesFilter(row, form)) return rows
  return [row, ...rows].sort(newestFirst).slice(0, Math.max(MAX_ROWS, rows.length))
}

/** An older page read from the store, added to the rows (which live events may have changed meanwhile). Never cut: it was asked for. */
export function mergePage(rows: readonly ExchangeSummary[], page: readonly ExchangeSummary[]): ExchangeSummary[] {
  const byId = new Map<string, ExchangeSummary>()
  for (const row of page) byId.set(row.id, row)
  // A live event is newer than the page's copy of the same exchange.
  for (const row of rows) byId.set(row.id, row)
  return [...byId.values()].sort(newestFirst)
}

/** The values each filter menu offers. */
export interface ValuesSeen {
  models: string[]
  sessions: string[]
  endpoints: string[]
  clients: Array<{ id: string; label: string }>
}

/**
 * What the menus offer after new rows: what they offered, and the rows' values. Kept across
 * filters, so a menu still offers its other values while one of them filters the list.
 */
export function mergeSeen(before: ValuesSeen, rows: readonly ExchangeSummary[]): ValuesSeen {
  const now = valuesSeen(rows)
  const union = (a: string[], b: string[]) => [...new Set([...a, ...b])].sort()
  const clients = new Map([...before.clients, ...now.clients].map((client) => [client.id, client.label]))
  return {
    models: union(before.models, now.models),
    sessions: union(before.sessions, now.sessions),
    endpoints: union(before.endpoints, now.endpoints),
    clients: [...clients].map(([id, label]) => ({ id, label })).sort((a, b) => a.label.localeCompare(b.label)),
  }
}

/** Distinct values seen in the rows, for the filter menus. */
export function valuesSeen(rows: readonly ExchangeSummary[]): ValuesSeen {
  const models = new Set<string>()
  const sessions = new Set<string>()
  const endpoints = new Set<string>()
  const clients = new Map<string, string>()
  for (const row of rows) {
    if (row.model !== null) models.add(row.model)
    if (row.session !== null) sessions.add(row.session)
    endpoints.add(row.endpoint)
    if (row.client.kind === 'key' && row.client.key_id !== null) clients.set(row.client.key_id, row.client.label)
    else clients.set('none', 'no valid key')
  }
  const sorted = (set: Set<string>) => [...set].sort()
  return {
    models: sorted(models),
    sessions: sorted(sessions),
    endpoints: sorted(endpoints),
    clients: [...clients].map(([id, label]) => ({ id, label })).sort((a, b) => a.label.localeCompare(b.label)),
  }
}
