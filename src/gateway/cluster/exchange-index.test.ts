import { Redis } from 'ioredis'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import type { ExchangeSummary } from '../../shared/api/traffic'
import { summaryOf, type Scope } from '../capture/exchange-filter'
import { exchangeFixture } from '../capture/test-support/exchange-fixture'
import { redisAvailable, startRedisServer, type RedisServer } from '../../test-kit/redis-server'
import {
  ExchangeIndex,
  formatIndexCursor,
  INDEX_MAX_PER_ORG,
  indexKey,
  isAfter,
  memberOf,
  newestFirst,
  parseEntry,
  parseIndexCursor,
  scoreOf,
  type IndexEntry,
  type IndexPosition,
} from './exchange-index'
import { RedisLink } from './redis-link'

/** One "now" for all the rows written: their order is their `agoMs`, not when the test built them. */
const NOW = Date.now()

/** An ended summary of `org`, ended `agoMs` before NOW. */
function summary(org: string | null, agoMs: number, overrides: Partial<ExchangeSummary> = {}): ExchangeSummary {
  return summaryOf(exchangeFixture({ org, started_at: new Date(NOW - agoMs - 2).toISOString(), ...overrides }))
}

describe('the exchange index entries', () => {
  it('reads back what it wrote, and nothing that is not a summary with its own ID', () => {
    const written = summary('a', 0)
    expect(parseEntry(memberOf(written), scoreOf(written))).toEqual({ score: scoreOf(written), id: written.id, summary: written })
    expect(parseEntry(`exch_other\n${JSON.stringify(written)}`, 1)).toBeUndefined()
    expect(parseEntry(`${written.id}\n{"id":`, 1)).toBeUndefined()
    expect(parseEntry(`${written.id}\n{"id":"${written.id}"}`, 1)).toBeUndefined()
    expect(parseEntry('no newline', 1)).toBeUndefined()
  })

  it('orders by end time, then by ID, newest first; a cursor is the position it names', () => {
    expect(isAfter({ score: 1, id: 'b' }, { score: 2, id: 'a' })).toBe(true)
    expect(isAfter({ score: 2, id: 'a' }, { score: 2, id: 'b' })).toBe(true)
    expect(isAfter({ score: 2, id: 'b' }, { score: 2, id: 'b' })).toBe(false)
    const position: IndexPosition = { score: 1767225600000, id: 'exch_0123456789abcdef01234567' }
    expect(parseIndexCursor(formatIndexCursor(position))).toEqual(position)
    expect(parseIndexCursor('42')).toBeUndefined()
    expect(parseIndexCursor('c1:a b')).toBeUndefined()
  })

  it('merges newest-first sequences into one', async () => {
    const entry = (score: number, id: string) => ({ score, id }) as IndexEntry
    async function* of(...entries: IndexEntry[]) {
      yield* entries
    }
    const merged: string[] = []
    for await (const { id } of newestFirst([of(entry(9, 'a'), entry(5, 'c'), entry(5, 'a')), of(entry(7, 'b'), entry(5, 'b')), of()])) merged.push(id)
    expect(merged).toEqual(['a', 'b', 'c', 'b', 'a'])
  })
})

const describeWithRedis = redisAvailable() ? describe : describe.skip

describeWithRedis('the exchange index in a real Redis', () => {
  let redis: RedisServer
  let link: RedisLink
  let raw: Redis
  let index: ExchangeIndex
  const member: Scope = { org: 'a', unattributed: false }
  const owner: Scope = { org: 'a', unattributed: true }

  beforeAll(async () => {
    redis = await startRedisServer()
    link = new RedisLink(redis.url, () => undefined)
    await link.connect()
    raw = new Redis(redis.url)
    index = new ExchangeIndex(link)
  })

  afterAll(async () => {
    raw.disconnect()
    link.close()
    await redis.stop()
  })

  beforeEach(async () => {
    await raw.flushall()
  })

  /** Every page of the scope, `limit` at a time: the IDs in order. */
  async function pageThrough(scope: Scope, limit: number, filter = {}): Promise<string[]> {
    const ids: string[] = []
    let cursor: IndexPosition | undefined
    for (let pages = 0; pages < 1_000; pages++) {
      const page = await index.page(scope, filter, limit, cursor)
      ids.push(...page.data.map((row) => row.id))
      if (page.next === undefined) return ids
      cursor = page.next
    }
    throw new Error('the pages never ended')
  }

  it("pages through an org's exchanges newest first, past the read chunks, with the unattributed ones for owners only", async () => {
    const written: ExchangeSummary[] = []
    for (let i = 0; i < 250; i++) written.push(summary(i % 10 === 0 ? null : i % 7 === 0 ? 'b' : 'a', i * 10))
    await Promise.all(written.map((row) => index.add(row)))
    const newestFirstIds = (rows: ExchangeSummary[]) => rows.map((row) => row.id)
    expect(await pageThrough(member, 60)).toEqual(newestFirstIds(written.filter((row) => row.org === 'a')))
    expect(await pageThrough(owner, 45)).toEqual(newestFirstIds(written.filter((row) => row.org === 'a' || row.org === null)))
    expect(await pageThrough({ org: 'b', unattributed: false }, 500)).toEqual(newestFirstIds(written.filter((row) => row.org === 'b')))
  })

  it('keeps every row of one end time across page boundaries, and applies the filters', async () => {
    const startedAt = new Date(NOW - 1_000).toISOString()
    const tied = Array.from({ length: 7 }, (_, i) => summary('a', 0, { started_at: startedAt, outcome: i % 2 === 0 ? 'finished' : 'refused' }))
    await Promise.all(tied.map((row) => index.add(row)))
    const byIdDescending = tied.map((row) => row.id).sort().reverse()
    expect(await pageThrough(member, 1)).toEqual(byIdDescending)
    expect(await pageThrough(member, 2, { outcome: ['refused'] })).toEqual(tied.filter((row) => row.outcome === 'refused').map((row) => row.id).sort().reverse())
  })

  it('holds at most INDEX_MAX_PER_ORG summaries per org, the newest, in a set that expires', async () => {
    const written = Array.from({ length: INDEX_MAX_PER_ORG + 5 }, (_, i) => summary('a', i))
    await Promise.all(written.map((row) => index.add(row)))
    expect(await raw.zcard(indexKey('a'))).toBe(INDEX_MAX_PER_ORG)
    expect(await pageThrough(member, 500)).toEqual(written.slice(0, INDEX_MAX_PER_ORG).map((row) => row.id))
    expect(await raw.pttl(indexKey('a'))).toBeGreaterThan(0)
  })

  it('skips members that are not summaries, and forgets a scope on drop', async () => {
    const row = summary('a', 0)
    await index.add(row)
    await raw.zadd(indexKey('a'), Date.now(), 'not a summary')
    await index.add(summary(null, 0))
    expect(await pageThrough(member, 10)).toEqual([row.id])
    await index.drop(owner)
    expect(await pageThrough(owner, 10)).toEqual([])
  })
})
