import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startGatewayServer, type GatewayServer } from '../gateway/server'
import { readEvents, startTestGateway, userMessage, type TestGateway } from './harness'
import { rawExchange } from '../test-kit/raw-http'

const APP = 'http://localhost:5173'

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway(['--allow-origin', APP, '--allow-host', 'mortar.test', '--scripted-tps', '50'])
})
afterAll(() => gw.close())

/** A raw request, so Host and Origin can be anything (fetch forbids setting them). */
function raw(path: string, headers: Record<string, string>, method = 'GET', body?: string) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }>((resolve, reject) => {
    const req = request(`${gw.url}${path}`, { method, headers }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

describe('CORS', () => {
  it('answers an allowed origin’s preflight, reflecting the requested headers', async () => {
    const res = await raw('/v1/chat/completions', {
      Origin: APP,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization, content-type, x-stainless-os, x-mortar-session',
    }, 'OPTIONS')
    expect(res.status).toBe(204)
    expect(res.headers['access-control-allow-origin']).toBe(APP)
    expect(res.headers['access-control-allow-headers']).toBe('authorization, content-type, x-stainless-os, x-mortar-session')
    expect(res.headers['access-control-allow-methods']).toContain('POST')
    expect(res.headers['access-control-allow-credentials']).toBeUndefined()
  })

  it('lets an allowed page read the X-Mortar-* reports', async () => {
    const res = await raw('/v1/chat/completions', { Origin: APP, Authorization: `Bearer ${gw.ownerKey}` }, 'POST', JSON.stringify({ ...userMessage('hi'), stream: false }))
    expect(res.status).toBe(200)
    expect(res.headers['access-control-allow-origin']).toBe(APP)
    const exposed = String(res.headers['access-control-expose-headers']).split(', ')
    for (const name of ['X-Mortar-Request-Id', 'X-Mortar-Optimizer', 'X-Mortar-Tool-Selector', 'X-Mortar-Session', 'X-Mortar-Upstream', 'X-Mortar-Dialect', 'X-Request-Id']) {
      expect(exposed).toContain(name)
    }
  })

  it('refuses any other origin outright, preflight or not', async () => {
    const preflight = await raw('/v1/chat/completions', { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'POST' }, 'OPTIONS')
    expect(preflight.status).toBe(403)
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined()
    const simple = await raw('/v1/chat/completions', { Origin: 'https://evil.example', 'Content-Type': 'text/plain', Authorization: `Bearer ${gw.ownerKey}` }, 'POST', JSON.stringify({ ...userMessage('hi'), stream: false }))
    expect(simple.status).toBe(403)
    expect(JSON.parse(simple.body).error.code).toBe('origin_not_allowed')
  })

  it("allows the gateway's own origin (the UI it serves)", async () => {
    const own = await raw('/v1/models', { Origin: gw.url, Authorization: `Bearer ${gw.ownerKey}` })
    expect(own.status).toBe(200)
  })
})

describe('Host allow-list (DNS rebinding)', () => {
  it('answers loopback names and configured ones, nothing else', async () => {
    const port = new URL(gw.url).port
    for (const host of [`127.0.0.1:${port}`, `localhost:${port}`, `[::1]:${port}`, `mortar.test:${port}`]) {
      expect((await raw('/health', { Host: host })).status).toBe(200)
    }
    for (const host of [`attacker.example:${port}`, `127.0.0.1.nip.io:${port}`, `localhost.attacker.example:${port}`]) {
      expect((await raw('/health', { Host: host })).status).toBe(403)
    }
  })

  it('parses Host strictly: a loopback name followed by anything but a port is refused', async () => {
    const port = new URL(gw.url).port
    const malformed = [
      '[::1]evil.example',
      `[::1]evil.example:${port}`,
      `[::1]:${port}evil.example`,
      `localhost:${port}:${port}`,
      `localhost:evil.example`,
      `127.0.0.1@evil.example`,
      `localhost/evil.example`,
      '[::1',
      `localhost:${port}0000`,
    ]
    for (const host of malformed) {
      const res = await raw('/health', { Host: host })
      expect([host, res.status]).toEqual([host, 403])
      expect(JSON.parse(res.body).error.code).toBe('host_not_allowed')
    }
  })

  // POST /v1/chat/completions has its own way in, around Express (create-gateway.ts); any other
  // spelling of the path goes through Express. Both must run the same checks.
  it.each(['/v1/chat/completions', '/v1/chat/completions?x=1', '/v1/chat/completions/', '/V1/Chat/Completions'])(
    'runs the same checks on %s',
    async (path) => {
      const port = new URL(gw.url).port
      const body = JSON.stringify({ ...userMessage('hi'), stream: false })
      const auth = { Authorization: `Bearer ${gw.ownerKey}` }
      const ok = await raw(path, { Host: `localhost:${port}`, ...auth }, 'POST', body)
      expect(ok.status).toBe(200)
      expect(ok.headers['x-request-id']).toMatch(/^req_/)
      const badHost = await raw(path, { Host: `attacker.example:${port}`, ...auth }, 'POST', body)
      expect([badHost.status, JSON.parse(badHost.body).error.code]).toEqual([403, 'host_not_allowed'])
      const badOrigin = await raw(path, { Origin: 'https://evil.example', ...auth }, 'POST', body)
      expect([badOrigin.status, JSON.parse(badOrigin.body).error.code]).toEqual([403, 'origin_not_allowed'])
      const noKey = await raw(path, {}, 'POST', body)
      expect([noKey.status, JSON.parse(noKey.body).error.code]).toEqual([401, 'missing_api_key'])
      expect(noKey.headers['x-should-retry']).toBe('false')
      const badKey = await raw(path, { Authorization: 'Bearer mk_live_nope' }, 'POST', body)
      expect([badKey.status, JSON.parse(badKey.body).error.code]).toEqual([401, 'invalid_api_key'])
    },
  )
})

describe('framing', () => {
  const expectUnframeable = (headers: Record<string, string | string[] | undefined>) => {
    expect(headers['content-security-policy']).toBe("frame-ancestors 'none'")
    expect(headers['x-frame-options']).toBe('DENY')
  }

  it('forbids every page to frame any response: the UI, the API, the hot path and refusals', async () => {
    const rendererDir = mkdtempSync(join(tmpdir(), 'mortar-ui-'))
    writeFileSync(join(rendererDir, 'index.html'), '<!doctype html><title>Mortar</title>')
    const home = mkdtempSync(join(tmpdir(), 'mortar-framing-'))
    const ui = await startGatewayServer({ host: '127.0.0.1', port: 0, home, rendererDir })
    try {
      const page = await fetch(`${ui.url}/`)
      expect(await page.text()).toContain('<title>Mortar</title>')
      expectUnframeable(Object.fromEntries(page.headers))
    } finally {
      await ui.close()
      rmSync(home, { recursive: true, force: true })
      rmSync(rendererDir, { recursive: true, force: true })
    }
    const auth = { Authorization: `Bearer ${gw.ownerKey}` }
    expectUnframeable((await raw('/v1/models', auth)).headers)
    expectUnframeable((await raw('/v1/chat/completions', auth, 'POST', JSON.stringify({ ...userMessage('hi'), stream: false }))).headers)
    expectUnframeable((await raw('/health', { Host: 'attacker.example' })).headers)
    expectUnframeable((await raw('/nowhere', auth)).headers)
  })
})

describe('limits and timeouts', () => {
  it('refuses oversized headers with 431', async () => {
    const res = await raw('/health', { 'X-Padding': 'x'.repeat(40 * 1024) })
    expect(res.status).toBe(431)
  })

  describe('with short timeouts', () => {
    let server: GatewayServer
    let home: string
    let key: string
    beforeAll(async () => {
      home = mkdtempSync(join(tmpdir(), 'mortar-timeouts-'))
      server = await startGatewayServer({
        host: '127.0.0.1',
        port: 0,
        home,
        scriptedTokensPerSecond: 40,
        timeouts: { headersMs: 300, requestMs: 600, checkIntervalMs: 50 },
      })
      key = server.keys.create({ name: 't' }).key
    })
    afterAll(async () => {
      await server.close()
      rmSync(home, { recursive: true, force: true })
    })

    it('cuts a client that sends its headers too slowly (slowloris)', async () => {
      const started = performance.now()
      const response = (await rawExchange(server.port, 'POST /v1/chat/completions HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')).received.toString()
      expect(response).toMatch(/^HTTP\/1.1 408/)
      expect(performance.now() - started).toBeLessThan(5_000)
    })

    it('never cuts a legitimate stream that outlasts the request timeout', async () => {
      const started = performance.now()
      const response = await fetch(`${server.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}` },
        body: JSON.stringify(userMessage(Array.from({ length: 30 }, (_, i) => `w${i}`).join(' '))),
      })
      const events = await readEvents(response)
      expect(performance.now() - started).toBeGreaterThan(600)
      expect(events.at(-1)).toBe('data: [DONE]')
    })
  })
})

describe('binding', () => {
  it('listens on 127.0.0.1 by default, and warns when told to listen elsewhere', async () => {
    expect(new URL(gw.url).hostname).toBe('127.0.0.1')
    const wide = await startTestGateway(['--host', '0.0.0.0'])
    try {
      expect(wide.output.join('\n')).toMatch(/Warning: listening on 0\.0\.0\.0/)
    } finally {
      await wide.close()
    }
  })
})

describe('keys stay secret', () => {
  it('appear in no telemetry event and no error', async () => {
    const controller = new AbortController()
    const telemetry = await fetch(`${gw.url}/v1/telemetry`, { headers: { Authorization: `Bearer ${gw.ownerKey}` }, signal: controller.signal })
    await readEvents(await gw.post('/v1/chat/completions', userMessage('secret check')))
    const bad = await gw.post('/v1/chat/completions', { messages: 'nope' })
    expect(await bad.text()).not.toContain(gw.ownerKey)
    controller.abort()
    const seen = await telemetry.text().catch((error: unknown) => String(error))
    expect(seen).not.toContain(gw.ownerKey)
    expect(seen).not.toContain(gw.ownerKey.slice(8, 20))
  })
})
