import type { ExchangeFilter, ExchangeSummary } from './traffic'

/**
 * The one definition of what each filter of the traffic API means, judged on a summary (every
 * filter but the full-text search, which needs the bodies). The gateway's stores answer the list
 * with it; the Traffic view holds live events to the same filters with it.
 */
export function matchesFilter(exchange: ExchangeSummary, filter: ExchangeFilter): boolean {
  const { status, outcome, model, session, client, endpoint, since, until } = filter
  if (status !== undefined && !(status as readonly string[]).includes(statusClass(exchange.status))) return false
  if (outcome !== undefined && !outcome.includes(exchange.outcome)) return false
  if (model !== undefined && !model.includes(exchange.model ?? '')) return false
  if (session !== undefined && !session.includes(exchange.session ?? '')) return false
  if (client !== undefined && !matchesClient(exchange.client, client)) return false
  if (endpoint !== undefined && !endpoint.includes(exchange.endpoint)) return false
  if (since !== undefined && Date.parse(exchange.started_at) < Date.parse(since)) return false
  if (until !== undefined && Date.parse(exchange.started_at) >= Date.parse(until)) return false
  return true
}

/** `none` is every request without a valid key; a key's ID also finds its refusals after it expired or was revoked. */
function matchesClient(sender: ExchangeSummary['client'], wanted: readonly string[]): boolean {
  if (wanted.includes(sender.kind === 'key' ? (sender.key_id ?? '') : 'none')) return true
  return sender.key_id !== null && wanted.includes(sender.key_id)
}

function statusClass(status: number | null): string {
  return status === null ? '' : `${Math.floor(status / 100)}xx`
}
