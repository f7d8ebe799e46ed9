import { beforeEach, describe, expect, it, vi } from 'vitest'
import { defaultDesktopSettings, type DesktopSettings } from '../shared/desktop-settings'
import type { IpcEnvelope } from '../shared/ipc'
import { createIpcDispatcher, createIpcHandlers, isSameOrigin, type IpcDispatch, type IpcHandlerDeps } from './ipc-handlers'

const APP = 'http://127.0.0.1:7313'
const page = { url: `${APP}/`, isMainFrame: true }

let saved: DesktopSettings
let deps: IpcHandlerDeps
let dispatch: IpcDispatch
let log: string[]

beforeEach(() => {
  saved = defaultDesktopSettings()
  log = []
  deps = {
    gatewayInfo: () => ({ url: APP, ok: true, key: 'mk_live_window', error: null }),
    settings: {
      read: () => saved,
      write: (settings) => (saved = settings),
    },
    testModelServer: vi.fn(async (url: string) => ({ ok: true, status: 200, models: ['m'], message: url })),
    relaunch: vi.fn(),
  }
  dispatch = createIpcDispatcher(createIpcHandlers(deps), (url) => isSameOrigin(url, APP), (m) => log.push(m))
})

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
    const changed = { ...defaultDesktopSettings(), ui: { ...defaultDesktopSettings().ui, theme: 'dark' as const } }
    for (const sender of senders) {
      expect(await dispatch('settings:set', sender, [changed])).toEqual({
        ok: false,
        error: 'This page may not use the desktop API.',
      })
      expect(await dispatch('app:relaunch', sender, [])).toMatchObject({ ok: false })
    }
    expect(saved).toEqual(defaultDesktopSettings())
    expect(deps.relaunch).not.toHaveBeenCalled()
    expect(log).toHaveLength(senders.length * 2)
    expect(log[0]).toContain("Refused IPC 'settings:set' from https://evil.example/")
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
    expect(await dispatch('settings:test-model-server', page, [42])).toEqual({
      ok: false,
      error: expect.stringContaining("Invalid argument 0 for 'settings:test-model-server'"),
    })
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

describe('errors', () => {
  it("returns the handler's own message when it throws", async () => {
    deps.settings.write = () => {
      throw new Error('EACCES: settings.json is read-only')
    }
    dispatch = createIpcDispatcher(createIpcHandlers(deps), (url) => isSameOrigin(url, APP))
    expect(await dispatch('settings:set', page, [defaultDesktopSettings()])).toEqual({
      ok: false,
      error: 'EACCES: settings.json is read-only',
    })
  })
})
