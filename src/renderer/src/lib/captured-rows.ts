// The rows of the Traffic list, from the traffic API: a page read from the store, then kept
// current by the live events. Filters are sent to the API as its query parameters; a live event
// is held to the same filters here, except the full-text search, which needs the bodies (a
// search is re-run instead). Pure.
import type { ExchangeFilterParams, ExchangeSummary, TrafficEvent } from '../../../shared/api/traffic'

/** The filter bar's fields; '' means "any". */
export interface TrafficFilterForm {
  status: '' | '2xx' | '3xx' | '4xx' | '5xx'
  outcome: '' | ExchangeSummary['outcome']
  model: string
  session: string
  /** A key ID, or `none` for requests without a valid key. */
  client: string
  endpoint: string
  /** Full-text search over request and reply text. */
  q: string
}

export const noFilter: TrafficFilterForm = { status: '', outcome: '', model: '', session: '', client: '', endpoint: '', q: '' }
const FILTER_FIELDS = Object.keys(noFilter).filter((name): name is keyof TrafficFilterForm => name in noFilter)

/** The form as the API's query parameters (empty fields left out). */
export function filterParams(form: TrafficFilterForm): ExchangeFilterParams {
  const params: ExchangeFilterParams = {}
  for (const name of FILTER_FIELDS) {
    const text = form[name].trim()
    if (text !== '') params[name] = text
  }
  return params
}

export const isSearching = (form: TrafficFilterForm): boolean => form.q.trim() !== ''

function statusClass(status: number | null): string | null {
  return status === null ? null : `${Math.floor(status / 100)}xx`
}

/** Whether a row meets the filters that a summary can be judged by (all but the search). */
export function matchesFilter(row: ExchangeSummary, form: TrafficFilterForm): boolean {
  if (form.status !== '' && statusClass(row.status) !== form.status) return false
  if (form.outcome !== '' && row.outcome !== form.outcome) return false
  if (form.model !== '' && row.model !== form.model) return false
  if (form.session !== '' && row.session !== form.session) return false
  if (form.endpoint !== '' && row.endpoint !== form.endpoint) return false
  if (form.client !== '') {
    // As the API reads it: `none` is every request without a valid key, and a key's ID also
    // finds its refusals after it expired or was revoked.
    const id = row.client.kind === 'key' ? row.client.key_id : 'none'
    if (id !== form.client && row.client.key_id !== form.client) return false
  }
  return true
}

/** The list keeps at most this many rows; older ones are a "load older" away. */
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
  return [row, ...rows].sort(newestFirst).slice(0, MAX_ROWS)
}

/** A page read from the store, merged with rows that live events brought meanwhile. */
export function mergePage(rows: readonly ExchangeSummary[], page: readonly ExchangeSummary[]): ExchangeSummary[] {
  const byId = new Map<string, ExchangeSummary>()
  for (const row of page) byId.set(row.id, row)
  // A live event is newer than the page's copy of the same exchange.
  for (const row of rows) byId.set(row.id, row)
  return [...byId.values()].sort(newestFirst).slice(0, MAX_ROWS)
}

/** Distinct values seen in the rows, for the filter menus. */
export function valuesSeen(rows: readonly ExchangeSummary[]): {
  models: string[]
  sessions: string[]
  endpoints: string[]
  clients: Array<{ id: string; label: string }>
} {
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
