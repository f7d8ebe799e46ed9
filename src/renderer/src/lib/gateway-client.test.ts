import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { GatewayClient, GatewayHttpError, insufficientRole } from './gateway-client'

// The key-management calls as the settings page makes them, against a recorded fetch: the same
// requests in Electron and in a browser (the page's origin is the gateway there).
interface Call {
  url: string
  method: string
  headers: Record<string, string>
  body: unknown
}

let calls: Call[]
let answer: () => Response

beforeEach(() => {
  calls = []
  answer = () => Response.json({ object: 'list', data: [] })
  vi.stubGlobal('window', { location: { href: 'http://127.0.0.1:7313/' } })
  vi.stubGlobal('fetch', async (url: string, init: RequestInit = {}) => {
    calls.push({
      url,
      method: init.method ?? 'GET',
      headers: init.headers as Record<string, string>,
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
    })
    return answer()
  })
})

afterEach(() => vi.unstubAllGlobals())

const client = () => new GatewayClient({ baseUrl: '', key: 'mk_live_window' })

/** A key object as /v1/keys answers it (the client parses answers against the API's schema). */
const KEY_1 = {
  object: 'api_key',
  id: 'key_1',
  name: 'ci',
  org: 'default',
  role: 'member',
  dialect: null,
  hint: 'mk_live_AbCd…wxYz',
  created_at: '2026-12-01T00:00:00.000Z',
  expires_at: null,
  revoked_at: null,
  status: 'active',
}

describe('key management over /v1/keys', () => {
  it('lists, creates, revokes and rotates with the window key', async () => {
    await client().listKeys()
    answer = () => Response.json({ ...KEY_1, key: 'mk_live_new' }, { status: 201 })
    expect(await client().createKey({ name: 'ci', role: 'member', expires_in_days: null })).toMatchObject({ key: 'mk_live_new' })
    answer = () => Response.json({ ...KEY_1, status: 'revoked', revoked_at: '2026-12-01T00:00:01.000Z' })
    await client().revokeKey('key_1')
    answer = () => Response.json({ ...KEY_1, id: 'key_2', key: 'mk_live_rotated' })
    await client().rotateKey('key_1')
    expect(calls.map((c) => [c.method, c.url, c.body])).toEqual([
      ['GET', 'http://127.0.0.1:7313/v1/keys', undefined],
      ['POST', 'http://127.0.0.1:7313/v1/keys', { name: 'ci', role: 'member', expires_in_days: null }],
      ['POST', 'http://127.0.0.1:7313/v1/keys/key_1/revoke', undefined],
      ['POST', 'http://127.0.0.1:7313/v1/keys/key_1/rotate', undefined],
    ])
    expect(calls.every((c) => c.headers.Authorization === 'Bearer mk_live_window')).toBe(true)
    expect(calls[1]?.headers['Content-Type']).toBe('application/json')
  })

  it('uses the gateway URL main reports, in Electron', async () => {
    await new GatewayClient({ baseUrl: 'http://127.0.0.1:9999', key: 'k' }).listKeys()
    expect(calls[0]?.url).toBe('http://127.0.0.1:9999/v1/keys')
  })

  it("turns a member key's 403 into a refusal the panel explains, and leaves other errors alone", async () => {
    answer = () =>
      Response.json(
        { error: { message: 'Managing keys needs an owner or admin key.', type: 'permission_error', param: null, code: 'insufficient_role' } },
        { status: 403 },
      )
    const refused = await client().listKeys().catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(GatewayHttpError)
    expect(refused).toMatchObject({ status: 403, code: 'insufficient_role' })
    expect(insufficientRole(refused)).toBe('Managing keys needs an owner or admin key.')

    answer = () => Response.json({ error: { message: 'No key has the ID key_x.', type: 'not_found_error', param: 'id', code: 'key_not_found' } }, { status: 404 })
    const missing = await client().revokeKey('key_x').catch((e: unknown) => e)
    expect(missing).toMatchObject({ status: 404, message: 'No key has the ID key_x.' })
    expect(insufficientRole(missing)).toBeNull()
    expect(insufficientRole(new Error('offline'))).toBeNull()
  })
})

describe('a 401 from any call', () => {
  it('tells the listener once per refused call, whichever call it was', async () => {
    const refused: string[] = []
    const listening = new GatewayClient({ baseUrl: '', key: 'mk_live_dead' }, (error) => refused.push(error.message))
    answer = () => Response.json({ error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }, { status: 401 })
    await expect(listening.listModels()).rejects.toMatchObject({ status: 401 })
    const chat = await listening.postChat({ messages: [] }, {}, new AbortController().signal)
    expect(chat.status).toBe(401)
    // The caller still reads the body it was given.
    expect(await chat.json()).toMatchObject({ error: { code: 'invalid_api_key' } })
    expect(refused).toEqual(['Incorrect API key provided.', 'Incorrect API key provided.'])
  })

  it('stays quiet for other refusals', async () => {
    const refused: string[] = []
    const listening = new GatewayClient({ baseUrl: '', key: 'mk_live_member' }, (error) => refused.push(error.message))
    answer = () => Response.json({ error: { message: 'no', type: 'permission_error', param: null, code: 'insufficient_role' } }, { status: 403 })
    await expect(listening.listKeys()).rejects.toMatchObject({ status: 403 })
    expect(refused).toEqual([])
  })
})
