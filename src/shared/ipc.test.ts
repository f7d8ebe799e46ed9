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
    await api.keysRevoke('key_1')
    expect(calls).toEqual([['gateway:get-info'], ['keys:revoke', 'key_1']])
  })

  it("rejects with the handler's own message", async () => {
    const api = createDesktopApi(async () => ({ ok: false, error: 'No key has the ID key_1.' }))
    await expect(api.keysRevoke('key_1')).rejects.toThrow(/^No key has the ID key_1\.$/)
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

  it('accepts well-formed arguments', () => {
    expect(parseIpcArgs('gateway:get-info', [])).toEqual({ ok: true, args: [] })
    expect(parseIpcArgs('settings:set', [defaultDesktopSettings()]).ok).toBe(true)
    expect(parseIpcArgs('keys:create', [{ name: ' ci ', role: 'member', expiresInDays: 30 }])).toEqual({
      ok: true,
      args: [{ name: 'ci', role: 'member', expiresInDays: 30 }],
    })
  })

  it('refuses extra, missing or malformed arguments with a message', () => {
    expect(parseIpcArgs('gateway:get-info', ['surprise']).ok).toBe(false)
    expect(parseIpcArgs('keys:revoke', []).ok).toBe(false)
    expect(parseIpcArgs('keys:revoke', ['../../etc'])).toEqual({
      ok: false,
      error: "Invalid argument 0 for 'keys:revoke': must be a key ID (key_…).",
    })
    expect(parseIpcArgs('keys:create', [{ name: 'x', role: 'root', expiresInDays: 1 }]).ok).toBe(false)
    const settings = defaultDesktopSettings()
    expect(parseIpcArgs('settings:set', [{ ...settings, gateway: { ...settings.gateway, port: 70_000 } }]).ok).toBe(false)
    expect(parseIpcArgs('settings:test-model-server', ['javascript:alert(1)']).ok).toBe(false)
  })
})
