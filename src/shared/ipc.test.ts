import { describe, expect, expectTypeOf, it } from 'vitest'
import {
  createDesktopApi,
  ipcChannels,
  ipcMethodName,
  type GatewayInfo,
  type IpcMethodName,
  type MortarDesktopApi,
} from './ipc'

describe('ipcMethodName', () => {
  it('turns scope:kebab-action into camelCase, matching the type-level name', () => {
    const name = ipcMethodName('gateway:get-info')
    expect(name).toBe('gatewayGetInfo')
    expectTypeOf(name).toEqualTypeOf<'gatewayGetInfo'>()
  })

  it('agrees with IpcMethodName on other shapes', () => {
    expectTypeOf<IpcMethodName<'app:restart'>>().toEqualTypeOf<'appRestart'>()
    expectTypeOf<IpcMethodName<'a:b-c-d'>>().toEqualTypeOf<'aBCD'>()
    expect(ipcMethodName('a:b-c-d' as never)).toBe('aBCD')
  })
})

describe('createDesktopApi', () => {
  it('exposes one method per channel that forwards to invoke with its channel', async () => {
    const calls: unknown[][] = []
    const info: GatewayInfo = { url: 'http://127.0.0.1:7313', ok: true }
    const api = createDesktopApi(async (...call) => {
      calls.push(call)
      return info
    })

    expect(Object.keys(api).sort()).toEqual(ipcChannels.map((c) => ipcMethodName(c)).sort())
    expectTypeOf(api.gatewayGetInfo).toEqualTypeOf<MortarDesktopApi['gatewayGetInfo']>()
    expectTypeOf(api.gatewayGetInfo).returns.resolves.toEqualTypeOf<GatewayInfo>()

    await expect(api.gatewayGetInfo()).resolves.toEqual(info)
    expect(calls).toEqual([['gateway:get-info']])
  })
})
