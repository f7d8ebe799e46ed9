import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { describe, expect, it } from 'vitest'
import { defaultDesktopSettings } from '../shared/desktop-settings'
import { gatewayOptions, isPortInUse, portFromEnv } from './gateway-options'
import { checkModelServer } from './model-server-check'
import { trayLabel } from './tray-state'

describe('gatewayOptions', () => {
  it('runs the scripted model on loopback with the home in user data', () => {
    const options = gatewayOptions(defaultDesktopSettings().gateway, { userData: '/u', rendererDir: '/r' }, {})
    expect(options).toEqual({
      host: '127.0.0.1',
      port: 7313,
      home: '/u/home',
      scriptedTokensPerSecond: 0,
      optimizerMode: 'shadow',
      capture: 'memory',
      rendererDir: '/r',
    })
  })

  it('forwards to the configured model servers, with their key from the environment', () => {
    const gateway = { ...defaultDesktopSettings().gateway, modelServers: ['http://a:8000/v1', 'http://b:8000/v1'], upstreamModel: 'qwen2.5:7b' }
    const options = gatewayOptions(gateway, { userData: '/u', rendererDir: undefined }, { MORTAR_UPSTREAM_API_KEY: 'sk-x' }, 0)
    expect(options.port).toBe(0)
    expect(options).not.toHaveProperty('rendererDir')
    expect(options.upstream).toEqual({
      modelId: DEFAULT_MODEL_ID,
      urls: ['http://a:8000/v1', 'http://b:8000/v1'],
      upstreamModel: 'qwen2.5:7b',
      apiKey: 'sk-x',
    })
  })

  it('reads MORTAR_PORT and recognises a taken port', () => {
    expect(portFromEnv({ MORTAR_PORT: '0' })).toBe(0)
    expect(portFromEnv({ MORTAR_PORT: 'x' })).toBeUndefined()
    expect(portFromEnv({})).toBeUndefined()
    expect(isPortInUse(Object.assign(new Error('listen'), { code: 'EADDRINUSE' }))).toBe(true)
    expect(isPortInUse(new Error('other'))).toBe(false)
  })
})

describe('checkModelServer', () => {
  const respond = (status: number, body: unknown): typeof fetch => async () => new Response(JSON.stringify(body), { status })

  it('lists the models of a reachable server', async () => {
    expect(await checkModelServer('http://gpu:8000/v1/', undefined, respond(200, { data: [{ id: 'qwen' }] }))).toEqual({
      ok: true,
      status: 200,
      models: ['qwen'],
      message: 'Reachable; serves qwen.',
    })
  })

  it('reports a refusal, an empty list and an unreachable server', async () => {
    expect(await checkModelServer('http://gpu:8000/v1', undefined, respond(401, {}))).toMatchObject({ ok: false, status: 401 })
    expect(await checkModelServer('http://gpu:8000/v1', undefined, respond(200, { data: [] }))).toMatchObject({ ok: false, message: expect.stringContaining('no models') })
    const unreachable = await checkModelServer('http://127.0.0.1:1/v1', undefined)
    expect(unreachable).toMatchObject({ ok: false, status: null })
    expect(unreachable.message).toContain('Could not reach http://127.0.0.1:1/v1/models')
  })

  it("sends the model server's key when there is one", async () => {
    let auth: string | null = null
    const capture: typeof fetch = async (_url, init) => {
      auth = new Headers(init?.headers).get('authorization')
      return new Response(JSON.stringify({ data: [{ id: 'm' }] }))
    }
    await checkModelServer('http://gpu:8000/v1', 'sk-up', capture)
    expect(auth).toBe('Bearer sk-up')
  })
})

describe('trayLabel', () => {
  it('says what the gateway is doing', () => {
    expect(trayLabel({ status: 'running', url: 'http://127.0.0.1:7313', live: 0 })).toBe('Mortar: http://127.0.0.1:7313/v1 · idle')
    expect(trayLabel({ status: 'running', url: 'http://127.0.0.1:7313', live: 2 })).toBe('Mortar: http://127.0.0.1:7313/v1 · 2 live')
    expect(trayLabel({ status: 'failed', url: '', live: 0 })).toBe('Mortar: gateway not running')
  })
})
