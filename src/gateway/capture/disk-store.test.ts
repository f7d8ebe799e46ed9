import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { exchangeListQuerySchema, type CaptureLimits } from '../../shared/api/traffic'
import { DiskStore, SCHEMA_VERSION } from './disk-store'
import { loadSqliteDriver, type SqliteDriver } from './sqlite-driver'
import { exchangeFixture } from './test-support/exchange-fixture'

const owner = { org: 'default', unattributed: true }
const all = exchangeListQuerySchema.parse({ limit: '500' })
const roomy: CaptureLimits = { max_bytes: 1e9, max_exchanges: 1_000, max_exchange_bytes: 1e6, retention_days: null }
const DAY = 86_400_000

let driver: SqliteDriver
const homes: string[] = []
const stores: DiskStore[] = []
beforeAll(async () => {
  driver = await loadSqliteDriver()
})
afterEach(() => {
  for (const store of stores.splice(0)) store.close()
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})

function open(limits: CaptureLimits, home = newHome(), now?: () => number) {
  const store = DiskStore.open(driver, home, limits, now)
  stores.push(store)
  return { store, home }
}

function newHome() {
  const home = mkdtempSync(join(tmpdir(), 'mortar-disk-'))
  homes.push(home)
  return home
}

const ids = (store: DiskStore) => store.list(owner, all).data.map((row) => row.id)

describe('DiskStore', () => {
  it('keeps exchanges whole across a reopen, in WAL mode, with its schema version', () => {
    const { store, home } = open(roomy)
    const exchange = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [['x', 'y']], body: '{"messages":[{"content":"ünïcode ✓"}]}' } })
    store.add(exchange)
    store.close()
    expect(statSync(join(home, 'traffic.sqlite')).mode & 0o777).toBe(0o600)
    const db = new driver(join(home, 'traffic.sqlite'))
    expect(db.pragma('journal_mode')).toEqual([{ journal_mode: 'wal' }])
    expect(db.prepare('SELECT version FROM schema_version').get()).toEqual({ version: SCHEMA_VERSION })
    db.close()
    const reopened = open(roomy, home).store
    expect(reopened.get(owner, exchange.id)).toEqual(exchange)
    expect(reopened.stats()).toMatchObject({ exchanges: 1, bytes: exchange.size_bytes })
  })

  it('creates a home that does not exist yet', () => {
    const home = join(newHome(), 'new', 'home')
    open(roomy, home)
    expect(existsSync(join(home, 'traffic.sqlite'))).toBe(true)
  })

  it('writes nothing on add: the batch goes in one transaction later, or before any read', () => {
    const { store, home } = open(roomy)
    store.add(exchangeFixture())
    store.add(exchangeFixture())
    const peek = new driver(join(home, 'traffic.sqlite'))
    expect(peek.prepare('SELECT count(*) AS n FROM exchanges').get()).toEqual({ n: 0 })
    expect(ids(store)).toHaveLength(2)
    expect(peek.prepare('SELECT count(*) AS n FROM exchanges').get()).toEqual({ n: 2 })
    peek.close()
  })

  it('deletes exchanges older than the retention, at open and after each batch', () => {
    let now = Date.parse('2026-01-10T00:00:00Z')
    const home = newHome()
    const { store } = open({ ...roomy, retention_days: 7 }, home, () => now)
    const old = exchangeFixture({ started_at: new Date(now - 8 * DAY).toISOString() })
    const recent = exchangeFixture({ started_at: new Date(now - 6 * DAY).toISOString() })
    store.add(old)
    store.add(recent)
    expect(ids(store)).toEqual([recent.id])
    store.close()
    now += 2 * DAY
    expect(ids(open({ ...roomy, retention_days: 7 }, home, () => now).store)).toEqual([])
  })

  it('holds the byte budget and the count, oldest first', () => {
    const sample = exchangeFixture()
    const { store } = open({ ...roomy, max_bytes: sample.size_bytes * 3 + 10, max_exchanges: 1_000 })
    const added = Array.from({ length: 6 }, () => exchangeFixture())
    for (const exchange of added) {
      store.add(exchange)
      store.flush()
      expect(store.stats().bytes).toBeLessThanOrEqual(sample.size_bytes * 3 + 10)
    }
    expect(ids(store)).toEqual(added.slice(3).reverse().map((exchange) => exchange.id))
    expect(store.stats().evicted).toBe(3)

    const counted = open({ ...roomy, max_exchanges: 2 }).store
    for (const exchange of added) counted.add(exchange)
    expect(ids(counted)).toEqual([added[5]?.id, added[4]?.id])
  })

  it('answers queries as the memory store does: scope, filters, search, pages', () => {
    const { store } = open(roomy)
    const refused = exchangeFixture({ status: 401, outcome: 'refused', org: null })
    const needle = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [], body: '{"messages":[{"content":"a NEEDLE"}]}' } })
    const other = exchangeFixture({ org: 'other' })
    for (const exchange of [refused, needle, other]) store.add(exchange)
    expect(ids(store)).toEqual([needle.id, refused.id])
    expect(store.list({ org: 'default', unattributed: false }, all).data.map((row) => row.id)).toEqual([needle.id])
    expect(store.list(owner, exchangeListQuerySchema.parse({ status: '4xx' })).data.map((row) => row.id)).toEqual([refused.id])
    expect(store.list(owner, exchangeListQuerySchema.parse({ q: 'needle' })).data.map((row) => row.id)).toEqual([needle.id])
    const first = store.list(owner, exchangeListQuerySchema.parse({ limit: '1' }))
    expect(first.data.map((row) => row.id)).toEqual([needle.id])
    expect(store.list(owner, exchangeListQuerySchema.parse({ limit: '1', cursor: first.next_cursor ?? '' })).data.map((row) => row.id)).toEqual([refused.id])
    expect(store.get({ org: 'other', unattributed: false }, needle.id)).toBeUndefined()
    expect(store.clear(owner)).toBe(2)
    expect(store.list({ org: 'other', unattributed: false }, all).data.map((row) => row.id)).toEqual([other.id])
  })

  it('refuses a database from a newer Mortar instead of rewriting it', () => {
    const { store, home } = open(roomy)
    store.close()
    const db = new driver(join(home, 'traffic.sqlite'))
    db.prepare('UPDATE schema_version SET version = ?').run(SCHEMA_VERSION + 1)
    db.close()
    expect(() => DiskStore.open(driver, home, roomy)).toThrow(/newer Mortar/)
  })
})
