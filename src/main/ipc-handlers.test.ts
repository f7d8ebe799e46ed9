import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { KeyStore } from '../gateway/auth/key-store'
import { defaultDesktopSettings, type DesktopSettings } from '../shared/desktop-settings'
import type { IpcEnvelope } from '../shared/ipc'
import { createIpcDispatcher, createIpcHandlers, isSameOrigin, type IpcDispatch, type IpcHandlerDeps } from './ipc-handlers'

const APP = 'http://127.0.0.1:7313'
const page = { url: `${APP}/`, isMainFrame: true }

let dir: string
let keys: KeyStore
let saved: DesktopSettings
let deps: IpcHandlerDeps
let dispatch: IpcDispatch
let log: string[]

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-ipc-'))
  keys = new KeyStore(join(dir, 'keys.json'))
  saved = defaultDesktopSettings()
  log = []
  deps = {
    gatewayInfo: () => ({ url: APP, ok: true, key: 'mk_live_window', error: null }),
    keys: () => keys,
    settings: {
      read: () => saved,
      write: (settings) => (saved = settings),
    },
    testModelServer: vi.fn(async (url: string) => ({ ok: true, status: 200, models: ['m'], message: url })),
    relaunch: vi.fn(),
  }
  dispatch = createIpcDispatcher(createIpcHandlers(deps), (url) => isSameOrigin(url, APP), (m) => log.push(m))
})

afterEach(() => rmSync(dir, { recursive: true, force: true }))

const value = <T>(envelope: IpcEnvelope<unknown>): T => {
  if (!envelope.ok) throw new Error(`expected ok, got ${envelope.error}`)
  return envelope.value as T
}

describe('the sender check', () => {
  it("answers the app's own page", async () => {
    expect(await dispatch('gateway:get-info', page, [])).toEqual({
      ok: true,
      value: { url: APP, ok: true, key: 'mk_live_window', error: null },
    })
  })

  it('refuses other origins, subframes and closed frames, without running the handler', async () => {
    const senders = [
      { url: 'https://evil.example/', isMainFrame: true },
      { url: 'http://127.0.0.1:7314/', isMainFrame: true },
      { url: 'file:///tmp/x.html', isMainFrame: true },
      { url: `${APP}/`, isMainFrame: false },
      { url: undefined, isMainFrame: true },
    ]
    for (const sender of senders) {
      expect(await dispatch('keys:create', sender, [{ name: 'x', role: 'owner', expiresInDays: null }])).toEqual({
        ok: false,
        error: 'This page may not use the desktop API.',
      })
    }
    expect(keys.list()).toEqual([])
    expect(log).toHaveLength(senders.length)
    expect(log[0]).toContain("Refused IPC 'keys:create' from https://evil.example/")
  })

  it('trusts nothing before the app origin is known', () => {
    expect(isSameOrigin('http://127.0.0.1:7313/', '')).toBe(false)
    expect(isSameOrigin('not a url', APP)).toBe(false)
  })
})

describe('argument validation', () => {
  it('refuses malformed arguments before the handler runs', async () => {
    const bad = await dispatch('settings:set', page, [{ gateway: { port: 'x' } }])
    expect(bad.ok).toBe(false)
    expect(saved).toEqual(defaultDesktopSettings())
    expect((await dispatch('settings:test-model-server', page, ['file:///etc/passwd'])).ok).toBe(false)
    expect(deps.testModelServer).not.toHaveBeenCalled()
    expect(await dispatch('keys:revoke', page, [42])).toEqual({ ok: false, error: expect.stringContaining("Invalid argument 0 for 'keys:revoke'") })
    expect((await dispatch('app:relaunch', page, ['now'])).ok).toBe(false)
    expect(deps.relaunch).not.toHaveBeenCalled()
  })
})

describe('settings', () => {
  it('reads and writes through the settings store', async () => {
    const next = defaultDesktopSettings()
    next.gateway.port = 8123
    next.ui.theme = 'dark'
    expect(value(await dispatch('settings:set', page, [next]))).toEqual(next)
    expect(value(await dispatch('settings:get', page, []))).toEqual(next)
  })

  it('tests a model server and relaunches on request', async () => {
    expect(value(await dispatch('settings:test-model-server', page, ['http://gpu-1:8000/v1']))).toMatchObject({ ok: true })
    expect(value(await dispatch('app:relaunch', page, []))).toBeNull()
    expect(deps.relaunch).toHaveBeenCalledOnce()
  })
})

describe('key management', () => {
  it('creates a key that authenticates, lists it without its hash, rotates and revokes it', async () => {
    const created = value<{ key: string; record: { id: string } }>(
      await dispatch('keys:create', page, [{ name: 'ci', role: 'member', expiresInDays: 7 }]),
    )
    expect(created.key).toMatch(/^mk_live_/)
    expect(keys.authenticate(created.key)).toMatchObject({ ok: true, principal: { role: 'member', keyName: 'ci' } })

    const listed = value<Array<Record<string, unknown>>>(await dispatch('keys:list', page, []))
    expect(listed).toHaveLength(1)
    expect(listed[0]).toMatchObject({ id: created.record.id, name: 'ci', role: 'member' })
    expect(listed[0]).not.toHaveProperty('hash')

    const rotated = value<{ key: string; record: { id: string; rotatedFrom: string } }>(await dispatch('keys:rotate', page, [created.record.id]))
    expect(rotated.record.rotatedFrom).toBe(created.record.id)
    expect(keys.authenticate(created.key)).toEqual({ ok: false, reason: 'revoked' })
    expect(keys.authenticate(rotated.key).ok).toBe(true)

    const revoked = value<{ revokedAt: string | null }>(await dispatch('keys:revoke', page, [rotated.record.id]))
    expect(revoked.revokedAt).not.toBeNull()
    expect(keys.authenticate(rotated.key)).toEqual({ ok: false, reason: 'revoked' })
  })

  it("returns the key store's own message when it refuses", async () => {
    expect(await dispatch('keys:revoke', page, ['key_0000'])).toEqual({
      ok: false,
      error: 'No key has the ID key_0000. `mortar keys list` shows them.',
    })
  })

  it('says so when the gateway is not running', async () => {
    deps.keys = () => null
    dispatch = createIpcDispatcher(createIpcHandlers(deps), (url) => isSameOrigin(url, APP))
    expect(await dispatch('keys:list', page, [])).toEqual({
      ok: false,
      error: 'The gateway is not running, so its keys cannot be managed.',
    })
  })
})
