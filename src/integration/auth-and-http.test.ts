import { readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KeyStore } from '../gateway/auth/key-store'
import { MAX_CLIENT_REQUEST_ID_LENGTH } from '../gateway/http/request-identity'
import { startTestGateway, userMessage, type TestGateway } from './harness'
import { expectEnvelope } from '../test-kit/expect-envelope'
import { loopbackHost } from '../test-kit/loopback'
import { rawExchange } from '../test-kit/raw-http'

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

const chat = (key: string | undefined, headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...(key ? { Authorization: `Bearer ${key}` } : {}), ...headers },
    body: JSON.stringify({ ...userMessage('hi'), stream: false }),
  })

const expectAuthError = async (response: Response, code: string): Promise<string> =>
  (await expectEnvelope(response, { status: 401, retry: false, type: 'authentication_error', param: null, code })).message

describe('API keys', () => {
  it('stores only hashes, owner-only, and the first-run key works', async () => {
    const file = join(gw.home, 'keys.json')
    const text = readFileSync(file, 'utf8')
    expect(text).not.toContain(gw.ownerKey)
    expect(text).toContain('sha256:')
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect((await chat(gw.ownerKey)).status).toBe(200)
  })

  it('refuses a missing, malformed or unknown key with 401 and never echoes it', async () => {
    await expectAuthError(await chat(undefined), 'missing_api_key')
    await expectAuthError(await chat(undefined, { Authorization: 'Basic abc' }), 'missing_api_key')
    const wrong = 'mk_live_' + 'x'.repeat(40)
    const message = await expectAuthError(await chat(wrong), 'invalid_api_key')
    expect(message).not.toContain(wrong)
  })

  it('refuses an expired key', async () => {
    // A store whose clock is 31 days ahead writes a key that is already past its 30-day expiry
    // by the gateway's clock; the gateway re-reads the file on the next request.
    const past = new KeyStore(join(gw.home, 'keys.json'), () => new Date(Date.now() - 31 * 86_400_000))
    const { key } = past.create({ name: 'old' })
    await expectAuthError(await chat(key), 'expired_api_key')
  })

  it('makes a revocation by another process effective on the very next request', async () => {
    const key = gw.createKey({ name: 'soon revoked' })
    expect((await chat(key)).status).toBe(200)
    const cli = new KeyStore(join(gw.home, 'keys.json'))
    const record = cli.list().find((r) => r.name === 'soon revoked')!
    cli.revoke(record.id)
    await expectAuthError(await chat(key), 'revoked_api_key')
  })

  it('makes a rotated key work at once and the old one fail', async () => {
    const key = gw.createKey({ name: 'rotating' })
    const cli = new KeyStore(join(gw.home, 'keys.json'))
    const record = cli.list().find((r) => r.name === 'rotating')!
    const rotated = cli.rotate(record.id)
    expect((await chat(rotated.key)).status).toBe(200)
    await expectAuthError(await chat(key), 'revoked_api_key')
  })

  it('surfaces as AuthenticationError in the openai SDK', async () => {
    const client = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: 'mk_live_nope', maxRetries: 0 })
    const error = await client.models.list().catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.AuthenticationError)
  })
})

describe('HTTP edges', () => {
  it('refuses a Host it does not answer to (DNS rebinding)', async () => {
    const { request } = await import('node:http')
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(`${gw.url}/health`, { headers: { Host: 'evil.example:1234' } }, (res) => {
        res.resume()
        resolve(res.statusCode ?? 0)
      })
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(403)
    expect((await fetch(`${gw.url}/health`)).status).toBe(200)
  })

  it('answers unknown routes and wrong methods with the error envelope', async () => {
    const unknown = await fetch(`${gw.url}/v1/nothing-here`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(unknown.status).toBe(404)
    expect(((await unknown.json()) as { error: { code: string } }).error.code).toBe('unknown_route')
    const wrongMethod = await fetch(`${gw.url}/v1/chat/completions`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.headers.get('allow')).toBe('POST')
    expect(((await wrongMethod.json()) as { error: { code: string } }).error.code).toBe('method_not_allowed')
  })

  it('gives every response an X-Request-Id, generated when the client sent none or a bad one', async () => {
    const generated = await fetch(`${gw.url}/health`)
    expect(generated.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{24}$/)
    const error = await chat(undefined, { 'X-Request-Id': 'trace-7' })
    expect(error.headers.get('x-request-id')).toBe('trace-7')
    const tooLong = await chat(gw.ownerKey, { 'X-Request-Id': 'x'.repeat(MAX_CLIENT_REQUEST_ID_LENGTH + 1) })
    expect(tooLong.headers.get('x-request-id')).toMatch(/^req_/)
  })

  it('echoes any printable X-Request-Id unchanged: spaces, punctuation, up to 1,024 characters', async () => {
    for (const sent of ['trace 7 / step "a"; b=c', 'x'.repeat(300), 'y'.repeat(MAX_CLIENT_REQUEST_ID_LENGTH)]) {
      expect((await chat(gw.ownerKey, { 'X-Request-Id': sent })).headers.get('x-request-id')).toBe(sent)
    }
  })

  it('replaces an X-Request-Id holding a tab or bytes that could not come back as sent', async () => {
    // Raw bytes on a socket: fetch refuses to send these. (CR, LF, NUL and DEL never get past Node's parser.)
    for (const sent of [Buffer.from('trace\t7', 'latin1'), Buffer.from('trace-äß', 'utf8')]) {
      expect((await rawRequestIdEcho(sent)).toString('latin1')).toMatch(/^req_[0-9a-f]{24}$/)
    }
  })
})

/** GET /health with these exact bytes as X-Request-Id; resolves with the bytes of the one echoed. */
async function rawRequestIdEcho(value: Buffer): Promise<Buffer> {
  const { port } = new URL(gw.url)
  const { received, error } = await rawExchange(
    Number(port),
    Buffer.concat([
      Buffer.from(`GET /health HTTP/1.1\r\nHost: ${loopbackHost(Number(port))}\r\nConnection: close\r\nX-Request-Id: `, 'latin1'),
      value,
      Buffer.from('\r\n\r\n', 'latin1'),
    ]),
  )
  if (error !== undefined) throw error
  const head = received.toString('latin1').split('\r\n\r\n')[0] ?? ''
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith('x-request-id:'))
  if (line === undefined) throw new Error(`no X-Request-Id in:\n${head}`)
  return Buffer.from(line.slice('x-request-id:'.length).trim(), 'latin1')
}

describe('sessions', () => {
  const sessionOf = async (headers: Record<string, string>, user?: string) => {
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gw.ownerKey}`, 'Content-Type': 'application/json', ...headers },
      body: JSON.stringify({ ...userMessage('hi'), stream: false, ...(user !== undefined ? { user } : {}) }),
    })
    expect(response.status).toBe(200)
    return response.headers.get('x-mortar-session')
  }

  it('uses X-Mortar-Session sanitized, else user, else a new session', async () => {
    expect(await sessionOf({ 'X-Mortar-Session': 'repo:main/feature#12 ü' }, 'alice')).toBe('repo:mainfeature12')
    expect(await sessionOf({ 'X-Mortar-Session': 'a'.repeat(200) })).toBe('a'.repeat(128))
    expect(await sessionOf({}, 'alice@example.com')).toBe('aliceexample.com')
    expect(await sessionOf({ 'X-Mortar-Session': '!!!' }, 'bob')).toBe('bob')
    const fresh1 = await sessionOf({})
    const fresh2 = await sessionOf({})
    expect(fresh1).toMatch(/^sess_[0-9a-f]{24}$/)
    expect(fresh2).not.toBe(fresh1)
  })
})

describe('context window', () => {
  const post = (body: unknown) =>
    fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gw.ownerKey}`, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('lowers max_tokens to what is left, and refuses with fewer than 64 left', async () => {
    // Each " a" is one o200k token; find sizes around the boundary from the gateway's own report.
    const probe = await post({ ...userMessage(''), stream: false })
    const framing = ((await probe.json()) as { usage: { prompt_tokens: number } }).usage.prompt_tokens
    const fill = (left: number) => 'a' + ' a'.repeat(4096 - 32 - framing - left - 1)

    const roomy = await post({ ...userMessage(fill(100)), stream: false, max_tokens: 5000 })
    expect(roomy.status).toBe(200)
    const completion = (await roomy.json()) as { usage: { prompt_tokens: number; completion_tokens: number }; choices: Array<{ finish_reason: string }> }
    expect(completion.usage.prompt_tokens).toBe(4096 - 32 - 100)
    // The reply repeats the prompt, so it runs into the lowered limit: exactly what is left.
    expect(completion.usage.completion_tokens).toBe(100)
    expect(completion.choices[0]?.finish_reason).toBe('length')

    expect((await post({ ...userMessage(fill(64)), stream: false })).status).toBe(200)
    const tooLong = await post({ ...userMessage(fill(63)), stream: false })
    expect(tooLong.status).toBe(400)
    expect(tooLong.headers.get('x-should-retry')).toBe('false')
    const error = ((await tooLong.json()) as { error: { code: string; type: string; message: string } }).error
    expect(error.code).toBe('context_length_exceeded')
    expect(error.type).toBe('invalid_request_error')
    expect(error.message).toContain('4096')
  })
})
