import { describe, expect, it } from 'vitest'
import { exchangeListQuerySchema } from '../../shared/api/traffic'
import { MemoryStore } from './memory-store'
import { exchangeFixture } from './test-support/exchange-fixture'

const owner = { org: 'default', unattributed: true }
const all = exchangeListQuerySchema.parse({ limit: '500' })
const ids = (store: MemoryStore) => store.list(owner, all).data.map((row) => row.id)

describe('MemoryStore limits', () => {
  it('evicts the oldest first when the count limit is reached', () => {
    const store = new MemoryStore({ max_bytes: 1e9, max_exchanges: 3 })
    const added = Array.from({ length: 5 }, () => exchangeFixture())
    for (const exchange of added) store.add(exchange)
    expect(ids(store)).toEqual(added.slice(2).reverse().map((exchange) => exchange.id))
    expect(store.stats()).toMatchObject({ exchanges: 3, evicted: 2 })
  })

  it('never holds more bytes than its budget, evicting as many of the oldest as it takes', () => {
    const small = exchangeFixture()
    const big = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [], body: 'x'.repeat(5_000) } })
    const budget = big.size_bytes + small.size_bytes
    const store = new MemoryStore({ max_bytes: budget, max_exchanges: 100 })
    for (let i = 0; i < 10; i++) {
      store.add(exchangeFixture())
      expect(store.stats().bytes).toBeLessThanOrEqual(budget)
    }
    store.add(big)
    const { bytes, exchanges } = store.stats()
    expect(bytes).toBeLessThanOrEqual(budget)
    expect(ids(store)[0]).toBe(big.id)
    expect(exchanges).toBe(2)
  })

  it('keeps its byte count exact through eviction and clearing', () => {
    const store = new MemoryStore({ max_bytes: 10_000, max_exchanges: 4 })
    const kept = Array.from({ length: 6 }, () => exchangeFixture()).map((exchange) => (store.add(exchange), exchange)).slice(2)
    expect(store.stats().bytes).toBe(kept.reduce((sum, exchange) => sum + exchange.size_bytes, 0))
    expect(store.clear(owner)).toBe(4)
    expect(store.stats()).toMatchObject({ exchanges: 0, bytes: 0 })
  })
})

describe('MemoryStore queries', () => {
  const store = new MemoryStore({ max_bytes: 1e9, max_exchanges: 1_000 })
  const refused = exchangeFixture({ status: 401, outcome: 'refused', org: null, client: { kind: 'unknown', key_id: null, key_name: null, key_hint: null, label: 'unknown key' } })
  const other = exchangeFixture({ org: 'other', model: 'n' })
  const searchable = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [], body: '{"messages":[{"content":"Find the NEEDLE here"}]}' } })
  const inReply = exchangeFixture({ response: { headers: [], frames: [{ t_ms: 1, raw: 'data: {"content":"a haystack"}\n\n' }], body: null } })
  for (const exchange of [refused, other, searchable, inReply]) store.add(exchange)
  const list = (scope: { org: string; unattributed: boolean }, params: Record<string, string>) =>
    store.list(scope, exchangeListQuerySchema.parse(params)).data.map((row) => row.id)

  it('shows a key its own organization, and owners and admins the refusals without a key', () => {
    expect(list(owner, {})).toEqual([inReply.id, searchable.id, refused.id])
    expect(list({ org: 'default', unattributed: false }, {})).toEqual([inReply.id, searchable.id])
    expect(list({ org: 'other', unattributed: true }, {})).toEqual([other.id, refused.id])
    expect(store.get({ org: 'other', unattributed: false }, searchable.id)).toBeUndefined()
  })

  it('filters by status class, outcome, client and model', () => {
    expect(list(owner, { status: '4xx' })).toEqual([refused.id])
    expect(list(owner, { outcome: 'finished,refused', client: 'none' })).toEqual([refused.id])
    expect(list({ org: 'other', unattributed: false }, { model: 'n' })).toEqual([other.id])
  })

  it('searches request and reply text, case-insensitively and literally', () => {
    expect(list(owner, { q: 'needle' })).toEqual([searchable.id])
    expect(list(owner, { q: 'HAYSTACK' })).toEqual([inReply.id])
    expect(list(owner, { q: '.*' })).toEqual([])
  })

  it('pages newest first with a cursor', () => {
    const first = store.list(owner, exchangeListQuerySchema.parse({ limit: '2' }))
    expect(first.data.map((row) => row.id)).toEqual([inReply.id, searchable.id])
    const second = store.list(owner, exchangeListQuerySchema.parse({ limit: '2', cursor: first.next_cursor ?? '' }))
    expect(second.data.map((row) => row.id)).toEqual([refused.id])
    expect(second.next_cursor).toBeNull()
  })
})
