import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Exchange } from '../../shared/api/traffic'
import { visibleTo, type Scope } from '../capture/exchange-filter'
import { exchangeFixture } from '../capture/test-support/exchange-fixture'
import { redisAvailable, startRedisServer, type RedisServer } from '../../test-kit/redis-server'
import { ExchangeLookup, type LocalExchanges } from './exchange-lookup'
import { RedisLink } from './redis-link'

/** An instance's captured exchanges, as its capture answers for them, and the clears it was told of. */
function holding(...exchanges: Exchange[]): LocalExchanges & { clears: Scope[] } {
  const clears: Scope[] = []
  return {
    clears,
    get: (scope, id) => exchanges.find((exchange) => exchange.id === id && visibleTo(scope, exchange.org)),
    clear: (scope) => (clears.push(scope), 0),
  }
}

const describeWithRedis = redisAvailable() ? describe : describe.skip

describeWithRedis('ExchangeLookup across instances (a real Redis)', () => {
  let redis: RedisServer
  const links: RedisLink[] = []
  const lookups: ExchangeLookup[] = []
  const held = exchangeFixture({ org: 'a' })
  const unattributed = exchangeFixture({ org: null })
  const onB = holding(held, unattributed)
  const onC = holding()
  let a: ExchangeLookup

  async function join(instance: string, local: LocalExchanges, waitMs?: number): Promise<ExchangeLookup> {
    const link = new RedisLink(redis.url, () => undefined)
    await link.connect()
    links.push(link)
    const lookup = new ExchangeLookup(link, instance, local, waitMs)
    lookups.push(lookup)
    // Subscribed once the subscriber connection answers a command after the SUBSCRIBE.
    await link.subscriber.ping()
    return lookup
  }

  beforeAll(async () => {
    redis = await startRedisServer()
    a = await join('a', holding())
    await join('b', onB)
    await join('c', onC)
  })

  afterAll(async () => {
    for (const lookup of lookups) lookup.close()
    for (const link of links) link.close()
    await redis.stop()
  })

  it("fetches another instance's record for a scope that may see it", async () => {
    expect(await a.get({ org: 'a', unattributed: false }, held.id)).toEqual(held)
    expect(await a.get({ org: 'a', unattributed: true }, unattributed.id)).toEqual(unattributed)
  })

  it('answers undefined, once every instance said none, for an unknown ID and for one the scope may not see', async () => {
    expect(await a.get({ org: 'a', unattributed: false }, 'exch_unknown')).toBeUndefined()
    expect(await a.get({ org: 'other', unattributed: false }, held.id)).toBeUndefined()
    expect(await a.get({ org: 'a', unattributed: false }, unattributed.id)).toBeUndefined()
  })

  it('gives up on an instance that never answers: undefined, as for an unknown ID', async () => {
    const silent = new Redis(redis.url)
    try {
      // Hears the question and says nothing: a hung instance.
      await silent.subscribe('mortar:traffic:get')
      const impatient = await join('d', holding(), 200)
      expect(await impatient.get({ org: 'a', unattributed: false }, 'exch_unknown')).toBeUndefined()
      // The holder's answer still wins over the silent one.
      expect(await impatient.get({ org: 'a', unattributed: false }, held.id)).toEqual(held)
    } finally {
      silent.disconnect()
    }
  })

  it('tells the other instances to clear a scope, and not itself', async () => {
    const own = holding()
    const e = await join('e', own)
    await e.clearElsewhere({ org: 'a', unattributed: true })
    // Each instance hears the clear before a question sent after it: once all said none to that, all heard the clear.
    await a.get({ org: 'a', unattributed: false }, 'exch_unknown')
    expect(onB.clears).toContainEqual({ org: 'a', unattributed: true })
    expect(onC.clears).toContainEqual({ org: 'a', unattributed: true })
    expect(own.clears).toEqual([])
  })
})
