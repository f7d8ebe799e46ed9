import { describe, expect, expectTypeOf, it } from 'vitest'
import { defaultDesktopSettings } from './desktop-settings'
import {
  createDesktopApi,
  ipcChannels,
  ipcMethodName,
  type GatewayInfo,
  type IpcMethodName,
  type MortarDesktopApi,
} from './ipc'
import { ipcArgSchemas, parseIpcArgs } from './ipc-validation'

describe('ipcMethodName', () => {
  it('turns scope:kebab-action into camelCase, matching the type-level name', () => {
    const name = ipcMethodName('gateway:get-info')
    expect(name).toBe('gatewayGetInfo')
    expectTypeOf(name).toEqualTypeOf<'gatewayGetInfo'>()
    expect(ipcMethodName('settings:test-model-server')).toBe('settingsTestModelServer')
  })

  it('agrees with IpcMethodName on other shapes', () => {
    expectTypeOf<IpcMethodName<'app:restart'>>().toEqualTypeOf<'appRestart'>()
    expectTypeOf<IpcMethodName<'a:b-c-d'>>().toEqualTypeOf<'aBCD'>()
    expect(ipcMethodName('a:b-c-d' as never)).toBe('aBCD')
  })
})

describe('createDesktopApi', () => {
  const info: GatewayInfo = { url: 'http://127.0.0.1:7313', ok: true, key: 'mk_live_x', error: null }

  it('exposes one method per channel that forwards to invoke with its channel and unwraps the reply', async () => {
    const calls: unknown[][] = []
    const api = createDesktopApi(async (...call) => {
      calls.push(call)
      return { ok: true, value: info }
    })

    expect(Object.keys(api).sort()).toEqual(ipcChannels.map((c) => ipcMethodName(c)).sort())
    expectTypeOf(api.gatewayGetInfo).toEqualTypeOf<MortarDesktopApi['gatewayGetInfo']>()
    expectTypeOf(api.gatewayGetInfo).returns.resolves.toEqualTypeOf<GatewayInfo>()

    await expect(api.gatewayGetInfo()).resolves.toEqual(info)
    await api.settingsTestModelServer('http://gpu-1:8000/v1')
    expect(calls).toEqual([['gateway:get-info'], ['settings:test-model-server', 'http://gpu-1:8000/v1']])
  })

  it("rejects with the handler's own message", async () => {
    const api = createDesktopApi(async () => ({ ok: false, error: 'The settings file is read-only.' }))
    await expect(api.settingsSet(defaultDesktopSettings())).rejects.toThrow(/^The settings file is read-only\.$/)
  })

  it('rejects a reply that is not an envelope', async () => {
    const api = createDesktopApi(async () => info)
    await expect(api.gatewayGetInfo()).rejects.toThrow(/without an envelope/)
  })
})

describe('parseIpcArgs', () => {
  it('has a schema for every channel', () => {
    expect(Object.keys(ipcArgSchemas).sort()).toEqual([...ipcChannels].sort())
  })

  it('keeps the map narrow: key management is the HTTP API (/v1/keys), not IPC', () => {
    expect(ipcChannels.filter((channel) => channel.startsWith('keys:'))).toEqual([])
  })

  it('accepts well-formed arguments', () => {
    expect(parseIpcArgs('gateway:get-info', [])).toEqual({ ok: true, args: [] })
    expect(parseIpcArgs('settings:set', [defaultDesktopSettings()]).ok).toBe(true)
    expect(parseIpcArgs('settings:test-model-server', ['http://gpu-1:8000/v1'])).toEqual({ ok: true, args: ['http://gpu-1:8000/v1'] })
  })

  it('refuses extra, missing or malformed arguments with a message', () => {
    expect(parseIpcArgs('gateway:get-info', ['surprise']).ok).toBe(false)
    expect(parseIpcArgs('settings:test-model-server', []).ok).toBe(false)
    expect(parseIpcArgs('settings:test-model-server', [42])).toEqual({
      ok: false,
      error: "Invalid argument 0 for 'settings:test-model-server': Invalid input: expected string, received number.",
    })
    expect(parseIpcArgs('app:relaunch', ['now']).ok).toBe(false)
    const settings = defaultDesktopSettings()
    expect(parseIpcArgs('settings:set', [{ ...settings, gateway: { ...settings.gateway, port: 70_000 } }]).ok).toBe(false)
    expect(parseIpcArgs('settings:test-model-server', ['javascript:alert(1)']).ok).toBe(false)
  })
})
