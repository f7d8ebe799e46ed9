import type { ExchangeList } from '../../shared/api/traffic'
import type { SharedExchanges } from '../capture/traffic-capture'
import { formatIndexCursor, parseIndexCursor, type ExchangeIndex } from './exchange-index'
import type { ExchangeLookup } from './exchange-lookup'
import type { RedisLink } from './redis-link'

/**
 * Capture's view of the cluster: the index for lists, the lookup for records, both for clears.
 * A list that Redis does not complete within LIST_WAIT_MS is not the cluster's: the caller lists
 * this instance's exchanges instead, so a slow or lost Redis costs a list at most that long.
 */
export function sharedExchanges(link: RedisLink, index: ExchangeIndex, lookup: ExchangeLookup, listWaitMs = LIST_WAIT_MS): SharedExchanges {
  return {
    ended: (summary) => void index.add(summary),
    list: async (scope, query) => {
      if (!link.connected) return undefined
      const cursor = query.cursor === undefined ? undefined : parseIndexCursor(query.cursor)
      if (query.cursor !== undefined && cursor === undefined) return undefined
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), listWaitMs)))
      const listed = index.page(scope, query, query.limit, cursor).then(
        (page): ExchangeList => ({ object: 'list', data: page.data, next_cursor: page.next === undefined ? null : formatIndexCursor(page.next) }),
        () => undefined,
      )
      try {
        return await Promise.race([listed, late])
      } finally {
        clearTimeout(timer)
      }
    },
    get: (scope, id) => lookup.get(scope, id),
    cleared: async (scope) => {
      if (!link.connected) return
      await Promise.all([index.drop(scope), lookup.clearElsewhere(scope)]).catch(() => undefined)
    },
  }
}

/** How long a list waits for the cluster's index. */
export const LIST_WAIT_MS = 1_000
