import { Redis } from 'ioredis'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { hashApiKey } from '../auth/api-key'
import { KeyStore } from '../auth/key-store'
import { KeysUnavailableError } from '../auth/key-store-errors'
import { redisAvailable, startRedisServer, type RedisServer } from '../../test-kit/redis-server'
import { RedisKeyRecords, type RedisKeyTiming } from './redis-key-records'
import { RedisLink } from './redis-link'

const describeWithRedis = redisAvailable() ? describe : describe.skip

/** Two gateways' key stores on one real Redis, each with its own connections. */
describeWithRedis('keys in Redis (real redis-server)', () => {
  let redis: RedisServer
  const opened: Array<{ store: KeyStore; link: RedisLink }> = []

  beforeEach(async () => {
    redis = await startRedisServer()
  })
  afterEach(async () => {
    for (const { store, link } of opened.splice(0)) {
      store.close()
      link.close()
    }
    await redis.stop()
  })

  async function openStore(timing: RedisKeyTiming = { pollMs: 200, staleAfterMs: 60_000 }): Promise<KeyStore> {
    const link = new RedisLink(redis.url, () => undefined)
    await link.connect()
    const records = new RedisKeyRecords(link, timing)
    await records.load()
    const store = new KeyStore(records)
    opened.push({ store, link })
    return store
  }

  const changeSeen = (store: KeyStore) => new Promise<void>((resolve) => {
    const stop = store.onChange(() => {
      stop()
      resolve()
    })
  })

  it('a key made through one store works in the other, and its revocation reaches the other at once', async () => {
    const [a, b] = await Promise.all([openStore(), openStore()])
    expect(b.isEmpty()).toBe(true)
    let seen = changeSeen(b)
    const { key, record } = await a.change(a.creation({ name: 'ci-bot' }))
    await seen
    expect(b.authenticate(key)).toMatchObject({ ok: true, principal: { keyId: record.id, keyName: 'ci-bot', org: 'default', role: 'member' } })
    seen = changeSeen(b)
    await a.change(a.revocation(record.id))
    await seen
    expect(b.authenticate(key)).toEqual({ ok: false, reason: 'revoked', key: { keyId: record.id, keyName: 'ci-bot' } })
    expect(b.validityOf(record.id)).toBe('revoked')
  })

  it('only hashes are stored, in the records keys.json holds', async () => {
    const store = await openStore()
    const { key, record } = await store.change(store.creation({ name: 'hashed', org: 'acme', role: 'admin' }))
    const raw = new Redis(redis.url)
    try {
      const all = await raw.hgetall('mortar:keys')
      expect(Object.keys(all)).toEqual([record.id])
      expect(JSON.parse(all[record.id]!)).toEqual(record)
      expect(JSON.stringify(all)).not.toContain(key)
      expect(JSON.parse(all[record.id]!).hash).toBe(hashApiKey(key))
    } finally {
      raw.disconnect()
    }
  })

  it('changes made at once through two stores are all kept (none undoes another)', async () => {
    const [a, b] = await Promise.all([openStore(), openStore()])
    const made = await Promise.all(
      Array.from({ length: 16 }, (_, i) => {
        const store = i % 2 === 0 ? a : b
        return store.change(store.creation({ name: `key-${i}` }))
      }),
    )
    const fresh = await openStore()
    expect(fresh.list().map((r) => r.name).sort()).toEqual(made.map((m) => m.record.name).sort())
    // A revocation racing creations keeps both.
    await Promise.all([a.change(a.revocation(made[0]!.record.id)), b.change(b.creation({ name: 'late' }))])
    const after = await openStore()
    expect(after.list()).toHaveLength(17)
    expect(after.validityOf(made[0]!.record.id)).toBe('revoked')
  })

  it('a record another program wrote that does not parse authorizes nothing, and is not overwritten by a change', async () => {
    const raw = new Redis(redis.url)
    try {
      await raw.hset('mortar:keys', 'key_bogus', '{"id":"key_bogus","hash":"sha256:00"}')
      await raw.set('mortar:keys:version', 'by-hand')
    } finally {
      raw.disconnect()
    }
    const store = await openStore()
    expect(store.list()).toEqual([])
    await store.change(store.creation({ name: 'real' }))
    expect(store.list().map((r) => r.name)).toEqual(['real'])
  })

  it('Redis unreachable: changes are refused, known keys work until the copy is older than its bound, then are refused too', async () => {
    const store = await openStore({ pollMs: 50, staleAfterMs: 400 })
    const { key, record } = await store.change(store.creation({ name: 'kept' }))
    await redis.kill()
    await expect(store.change(store.creation({ name: 'refused' }))).rejects.toBeInstanceOf(KeysUnavailableError)
    expect(store.authenticate(key)).toMatchObject({ ok: true })
    await vi.waitFor(() => expect(store.authenticate(key)).toMatchObject({ ok: false, reason: 'unavailable' }), { timeout: 5_000, interval: 50 })
    // No stream is ended for want of news.
    expect(store.validityOf(record.id)).toBe('active')
    // The launch key of the gateway's own window needs no Redis.
    expect(store.authenticate(store.createEphemeral('desktop'))).toMatchObject({ ok: true })
    await redis.restart()
    await vi.waitFor(() => expect(store.authenticate(key)).toMatchObject({ ok: true }), { timeout: 10_000, interval: 50 })
  })
})
