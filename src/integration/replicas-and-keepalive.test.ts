import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { readEvents, startTestGateway, streamEvents, userMessage, type TestGateway } from './harness'
import { expectEnvelope } from '../test-kit/expect-envelope'

let a: FakeModelServer
let b: FakeModelServer
beforeAll(async () => {
  a = await startFakeModelServer({ name: 'a' })
  b = await startFakeModelServer({ name: 'b' })
})
afterAll(async () => {
  await a.close()
  await b.close()
})

const servedBy = async (gw: TestGateway, session: string | undefined, stream = false) => {
  const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream }, session === undefined ? {} : { 'X-Mortar-Session': session })
  expect(response.status).toBe(200)
  await response.text()
  return response.headers.get('x-mortar-upstream')
}

describe('two replicas', () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startTestGateway(['--upstream', a.url, '--upstream', b.url])
  })
  afterAll(() => gw.close())
  afterEach(async () => {
    await a.restart()
    await b.restart()
  })

  it('keeps each named session on one replica, and spreads sessions over both', async () => {
    const placement = new Map<string, string | null>()
    for (let i = 0; i < 24; i++) placement.set(`session-${i}`, await servedBy(gw, `session-${i}`))
    for (const [session, replica] of placement) {
      for (let repeat = 0; repeat < 3; repeat++) expect(await servedBy(gw, session, repeat === 1)).toBe(replica)
    }
    const counts = [...placement.values()].reduce((m, r) => m.set(r, (m.get(r) ?? 0) + 1), new Map<string | null, number>())
    expect(new Set(placement.values())).toEqual(new Set([a.host, b.host]))
    expect(Math.min(...counts.values())).toBeGreaterThanOrEqual(4)
  })

  it('uses `user` as the session when the header is absent', async () => {
    const viaHeader = await servedBy(gw, 'alice')
    const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false, user: 'alice' })
    expect(response.headers.get('x-mortar-upstream')).toBe(viaHeader)
  })

  it('spreads requests without a session across replicas', async () => {
    const seen = new Set<string | null>()
    for (let i = 0; i < 4; i++) seen.add(await servedBy(gw, undefined))
    expect(seen).toEqual(new Set([a.host, b.host]))
  })

  it("fails a session over when its replica refuses connections, and keeps serving it there", async () => {
    const home = await servedBy(gw, 'failover-session')
    const [down, other] = home === a.host ? [a, b] : [b, a]
    await down.kill()
    expect(await servedBy(gw, 'failover-session')).toBe(other.host)
    expect(await servedBy(gw, 'failover-session', true)).toBe(other.host)
  })

  it('answers 503 upstream_unavailable when no replica can be reached', async () => {
    await a.kill()
    await b.kill()
    const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false })
    const error = await expectEnvelope(response, { status: 503, code: 'upstream_unavailable', type: 'upstream_error', message: a.host })
    expect(error.message).toContain(b.host)
  })
})

describe('keep-alive', () => {
  const pingsBeforeContent = async (gw: TestGateway) => {
    const response = await gw.post('/v1/chat/completions', userMessage('hi'))
    const headersAt = performance.now()
    const arrivals: Array<{ event: string; at: number }> = []
    for await (const event of streamEvents(response)) {
      arrivals.push({ event, at: performance.now() - headersAt })
      if (event.includes('"content"')) break
    }
    return arrivals
  }

  it('sends `: ping` while a slow first token is awaited (test interval)', async () => {
    process.env.MORTAR_TEST_PING_INTERVAL_MS = '100'
    const gw = await startTestGateway(['--upstream', a.url])
    delete process.env.MORTAR_TEST_PING_INTERVAL_MS
    try {
      a.behavior.mode = 'stall-before-first-token'
      a.behavior.stallMs = 450
      const arrivals = await pingsBeforeContent(gw)
      const pings = arrivals.filter((x) => x.event === ': ping')
      expect(pings.length).toBeGreaterThanOrEqual(3)
      expect(pings.length).toBeLessThanOrEqual(5)
      expect(arrivals.at(-1)?.event).toContain('"content"')
    } finally {
      a.behavior.mode = 'normal'
      await gw.close()
    }
  })

  it('pings every 10 s by default, from when the headers went out', { timeout: 30_000 }, async () => {
    const gw = await startTestGateway(['--upstream', a.url])
    try {
      a.behavior.mode = 'stall-before-first-token'
      a.behavior.stallMs = 10_600
      const arrivals = await pingsBeforeContent(gw)
      const pings = arrivals.filter((x) => x.event === ': ping')
      expect(pings).toHaveLength(1)
      expect(pings[0]!.at).toBeGreaterThan(9_800)
      expect(pings[0]!.at).toBeLessThan(10_500)
    } finally {
      a.behavior.mode = 'normal'
      await gw.close()
    }
  })

  it('sends no pings for the scripted model, which never keeps a client waiting', async () => {
    const gw = await startTestGateway(['--scripted-tps', '50'])
    try {
      const events = await readEvents(await gw.post('/v1/chat/completions', userMessage('a few words here')))
      expect(events.filter((e) => e.startsWith(':'))).toEqual([])
    } finally {
      await gw.close()
    }
  })
})

describe('config.json', () => {
  it('defines models and deployments; a catalogued model without one answers 503; edits apply without a restart', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-config-'))
    const config = (models: unknown[]) => writeFileSync(join(home, 'config.json'), JSON.stringify({ version: 1, models }))
    config([
      { id: 'local/qwen', contextWindow: 8192, deployment: { kind: 'upstream', replicas: [{ url: a.url, name: 'gpu-box', model: 'qwen2.5:7b' }] } },
      { id: 'later/model', deployment: null },
    ])
    const gw = await startTestGateway([], { home })
    try {
      const models = (await (await fetch(`${gw.url}/v1/models`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })).json()) as {
        data: Array<{ id: string; context_window: number; deployment: string | null }>
      }
      expect(models.data).toEqual([
        expect.objectContaining({ id: 'local/qwen', context_window: 8192, deployment: 'upstream' }),
        expect.objectContaining({ id: 'later/model', deployment: null }),
      ])
      const forwarded = await gw.post('/v1/chat/completions', { model: 'local/qwen', ...userMessage('hi'), stream: false })
      expect(forwarded.headers.get('x-mortar-upstream')).toBe('gpu-box')
      expect(a.requests.at(-1)?.body?.model).toBe('qwen2.5:7b')

      const notDeployed = await gw.post('/v1/chat/completions', { model: 'later/model', ...userMessage('hi'), stream: false })
      expect(notDeployed.status).toBe(503)
      expect(((await notDeployed.json()) as { error: { code: string } }).error.code).toBe('model_not_available')

      config([{ id: 'later/model', deployment: { kind: 'scripted' } }])
      const nowScripted = await gw.post('/v1/chat/completions', { model: 'later/model', ...userMessage('hi'), stream: false })
      expect(nowScripted.status).toBe(200)
      expect(nowScripted.headers.get('x-mortar-deployment')).toBe('scripted')

      // A broken edit keeps the running catalog.
      writeFileSync(join(home, 'config.json'), '{"version": 1, "models": [}')
      expect((await gw.post('/v1/chat/completions', { model: 'later/model', ...userMessage('hi'), stream: false })).status).toBe(200)
    } finally {
      await gw.close()
    }
  })

  it('refuses to start on a bad config file, naming the file and the field', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-config-'))
    writeFileSync(join(home, 'config.json'), JSON.stringify({ version: 1, models: [{ id: 'x', deployment: { kind: 'upstream', replicas: [{ url: 'ftp://nope' }] } }] }))
    await expect(startTestGateway([], { home })).rejects.toThrow(/config\.json is not valid: models\.0\.deployment\.replicas\.0\.url/)
  })
})
