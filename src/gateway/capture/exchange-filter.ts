import type { Exchange, ExchangeFilter, ExchangeSummary } from '../../shared/api/traffic'
import type { Principal } from '../auth/key-store'

/**
 * Who may see which exchanges: a key sees its own organization's; owner and admin keys also see
 * those that carried no valid key (no organization) — where a misconfigured client shows up.
 */
export interface Scope {
  org: string
  unattributed: boolean
}

export function scopeOf(principal: Principal): Scope {
  return { org: principal.org, unattributed: principal.role === 'owner' || principal.role === 'admin' }
}

export function visibleTo(scope: Scope, org: string | null): boolean {
  return org === null ? scope.unattributed : org === scope.org
}

/** The one definition of what each filter means, for every store. `q` is matched by `matchesText`. */
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

/** `none` is every request without a valid key; a key's ID also finds its refusals once it expired or was revoked. */
function matchesClient(sender: ExchangeSummary['client'], wanted: readonly string[]): boolean {
  if (wanted.includes(sender.kind === 'key' ? (sender.key_id ?? '') : 'none')) return true
  return sender.key_id !== null && wanted.includes(sender.key_id)
}

function statusClass(status: number | null): string {
  return status === null ? '' : `${Math.floor(status / 100)}xx`
}

/** Case-insensitive, literal: what a search box means. */
export function searchPattern(q: string): RegExp {
  return new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'i')
}

/** Full-text search over what was asked and what was answered: request body, model body, reply. */
export function matchesText(exchange: Exchange, pattern: RegExp): boolean {
  if (pattern.test(exchange.request.body)) return true
  if (exchange.model_body !== null && pattern.test(exchange.model_body)) return true
  if (exchange.response.body !== null && pattern.test(exchange.response.body)) return true
  return exchange.response.frames.some((frame) => pattern.test(frame.raw))
}

/** The list row of an exchange: everything but headers, bodies and frames. */
export function summaryOf(exchange: Exchange): ExchangeSummary {
  // eslint-disable-next-line @typescript-eslint/no-unused-vars
  const { request, model_body, response, upstream, ...summary } = exchange
  return summary
}
