import type { Exchange, ExchangeSummary } from '../../shared/api/traffic'
// What each filter means is defined once, for the stores here and the Traffic view alike.
export { matchesFilter } from '../../shared/api/exchange-filter'
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
