import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { KeyStore, KeyStoreError } from './key-store'

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-ks-'))
  file = join(dir, 'keys.json')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('KeyStore', () => {
  it('authenticates by hash with org and role, and expires keys by its clock', () => {
    let now = new Date('2026-01-01T00:00:00Z')
    const store = new KeyStore(file, () => now)
    const { key, record } = store.create({ name: 'k', org: 'acme', role: 'admin' })
    expect(record.expiresAt).toBe('2026-01-31T00:00:00.000Z')
    expect(store.authenticate(key)).toEqual({ ok: true, principal: { keyId: record.id, keyName: 'k', org: 'acme', role: 'admin', dialect: null } })
    expect(store.authenticate(key + 'x')).toEqual({ ok: false, reason: 'invalid' })
    now = new Date('2026-01-31T00:00:00Z')
    expect(store.authenticate(key)).toEqual({ ok: false, reason: 'expired', key: { keyId: record.id, keyName: 'k' } })
  })

  it('keeps the key out of the file, which is owner-only', () => {
    const store = new KeyStore(file)
    const { key } = store.create({ name: 'k' })
    expect(readFileSync(file, 'utf8')).not.toContain(key.slice('mk_live_'.length))
    expect(statSync(file).mode & 0o777).toBe(0o600)
  })

  it('sees changes another process wrote without being told, as soon as its watcher reports them', async () => {
    const server = new KeyStore(file)
    const cli = new KeyStore(file)
    try {
      const { key, record } = cli.create({ name: 'k' })
      expect(server.authenticate(key).ok).toBe(true)
      cli.revoke(record.id)
      // The kernel reports the write through the event loop (or a check within a second finds it).
      await vi.waitFor(() => expect(server.authenticate(key)).toMatchObject({ ok: false, reason: 'revoked' }), { timeout: 3_000, interval: 5 })
    } finally {
      server.close()
    }
  })

  it('on the request path keeps the last good keys when the file turns corrupt; strict reads refuse', () => {
    const server = new KeyStore(file)
    const { key } = server.create({ name: 'k' })
    writeFileSync(file, '{ not json')
    expect(server.authenticate(key).ok).toBe(true)
    expect(() => server.list()).toThrow(KeyStoreError)
    expect(() => new KeyStore(file)).toThrow(/keys\.json is not valid JSON/)
  })

  it('validates names, orgs and lifetimes', () => {
    const store = new KeyStore(file)
    expect(() => store.create({ name: ' ' })).toThrow(KeyStoreError)
    expect(() => store.create({ name: 'k', org: 'bad org!' })).toThrow(KeyStoreError)
    expect(() => store.create({ name: 'k', expiresInDays: 0 })).toThrow(KeyStoreError)
    expect(store.create({ name: 'k', expiresInDays: null }).record.expiresAt).toBeNull()
  })
})

describe('a key\'s dialect', () => {
  it('is stored, authenticated with, kept by rotation, and null for the gateway\'s', () => {
    const store = new KeyStore(file)
    const { key, record } = store.create({ name: 'ai-sdk', dialect: 'openai' })
    expect(record.dialect).toBe('openai')
    expect(store.authenticate(key)).toMatchObject({ ok: true, principal: { dialect: 'openai' } })
    const rotated = store.rotate(record.id)
    expect(rotated.record.dialect).toBe('openai')
    expect(new KeyStore(file).authenticate(rotated.key)).toMatchObject({ ok: true, principal: { dialect: 'openai' } })
    expect(store.create({ name: 'plain' }).record.dialect).toBeNull()
  })

  it('reads a keys.json written before keys had one as the gateway\'s', () => {
    const store = new KeyStore(file)
    const { key } = store.create({ name: 'old' })
    const saved = JSON.parse(readFileSync(file, 'utf8')) as { keys: Array<Record<string, unknown>> }
    for (const k of saved.keys) delete k.dialect
    writeFileSync(file, JSON.stringify(saved))
    expect(new KeyStore(file).authenticate(key)).toMatchObject({ ok: true, principal: { dialect: null } })
  })
})

describe('ephemeral keys', () => {
  it('authenticate for this process only, and never reach the file', () => {
    const store = new KeyStore(file)
    const key = store.createEphemeral('ui', 'acme')
    expect(store.authenticate(key)).toEqual({ ok: true, principal: { keyId: 'ephemeral:ui', keyName: 'ui', org: 'acme', role: 'owner', dialect: null } })
    expect(store.list()).toEqual([])
    expect(new KeyStore(file).authenticate(key)).toEqual({ ok: false, reason: 'invalid' })
  })
})
