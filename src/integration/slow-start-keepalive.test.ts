import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defaultFakeBehavior, startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { dataPayloads, readEvents, startTestGateway, streamEvents, userMessage, type TestGateway } from './harness'

// A model server slow to send its response headers (loading a model, a long queue): after one
// ping interval the client gets its 200 and a `: ping`, and from then on a failure is one
// mid-stream upstream_error event, without [DONE]. Fast failures keep their statuses.

let fake: FakeModelServer
beforeAll(async () => {
  fake = await startFakeModelServer({ name: 'slow' })
})
afterAll(() => fake.close())
afterEach(() => {
  fake.behavior = { ...defaultFakeBehavior(), name: 'slow' }
})

const withGateway = async (args: string[], pingIntervalMs: string | undefined, run: (gw: TestGateway) => Promise<void>) => {
  if (pingIntervalMs !== undefined) process.env.MORTAR_TEST_PING_INTERVAL_MS = pingIntervalMs
  const gw = await startTestGateway(['--upstream', fake.url, ...args])
  delete process.env.MORTAR_TEST_PING_INTERVAL_MS
  try {
    await run(gw)
  } finally {
    await gw.close()
  }
}

const isPing = (event: string) => event === ': ping'
/** The next chat request the fake receives from now on (earlier ones may be left untaken). */
const nextArrival = () => fake.requestAt(fake.requests.length)

describe('a model server slow to answer (test ping interval 100 ms)', () => {
  it('opens the stream with a 200 and pings, then streams the reply', async () => {
    await withGateway([], '100', async (gw) => {
      fake.behavior.headersDelayMs = 450
      const response = await gw.post('/v1/chat/completions', userMessage('hi'))
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
      // The stream opened before the server had answered; it names the server it was waiting on.
      expect(response.headers.get('x-mortar-upstream')).toBe(`127.0.0.1:${fake.port}`)
      const events = await readEvents(response)
      const firstData = events.findIndex((event) => event.startsWith('data: '))
      expect(events.slice(0, firstData).every(isPing)).toBe(true)
      expect(firstData).toBeGreaterThanOrEqual(3)
      expect(dataPayloads(events).map((chunk) => (chunk.choices as Array<{ delta?: { content?: string } }>)[0]?.delta?.content ?? '').join('')).toBe(
        'Hello from the model',
      )
      expect(events.at(-1)).toBe('data: [DONE]')
      expect(gw.completions.at(-1)).toMatchObject({ outcome: 'finished', upstream: `127.0.0.1:${fake.port}` })
    })
  })

  for (const failure of [
    { name: 'fails with an error status', mode: 'error-500' as const, args: [], code: 'upstream_error' },
    { name: 'never sends headers (the header timeout)', mode: 'never-answer' as const, args: ['--upstream-timeout', '0.45'], code: 'upstream_timeout' },
  ]) {
    it(`then ${failure.name}: one upstream_error event, no [DONE], one failed ending`, async () => {
      await withGateway(failure.args, '100', async (gw) => {
        fake.behavior.mode = failure.mode
        fake.behavior.headersDelayMs = 300
        const response = await gw.post('/v1/chat/completions', userMessage('hi'))
        expect(response.status).toBe(200)
        const id = response.headers.get('x-mortar-request-id')
        const events = await readEvents(response)
        expect(events.filter((event) => !isPing(event))).toHaveLength(1)
        expect(events[0]).toBe(': ping')
        const [error] = dataPayloads(events)
        expect(error).toMatchObject({ error: { type: 'upstream_error', code: failure.code } })
        expect(events).not.toContain('data: [DONE]')
        expect(gw.completions.filter((record) => record.id === id)).toMatchObject([{ outcome: 'failed', errorCode: failure.code }])
      })
    })
  }

  it('keeps the statuses of failures that come before the ping interval, and leaves non-streaming requests alone', async () => {
    await withGateway(['--upstream-timeout', '0.3'], '1000', async (gw) => {
      fake.behavior.mode = 'error-500'
      expect((await gw.post('/v1/chat/completions', userMessage('hi'))).status).toBe(502)
      fake.behavior.mode = 'never-answer'
      expect((await gw.post('/v1/chat/completions', userMessage('hi'))).status).toBe(504)
    })
    await withGateway([], '100', async (gw) => {
      fake.behavior = { ...defaultFakeBehavior(), headersDelayMs: 300 }
      const slowJson = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false })
      expect(slowJson.status).toBe(200)
      expect(slowJson.headers.get('content-type')).toMatch(/^application\/json/)
      fake.behavior.mode = 'error-500'
      expect((await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false })).status).toBe(502)
    })
  })

  it('stops by id while waiting: the stream ends with [DONE] and the server sees the hang-up', async () => {
    await withGateway([], '100', async (gw) => {
      fake.behavior.mode = 'never-answer'
      const arrival = nextArrival()
      const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream_options: { include_usage: true } })
      const id = response.headers.get('x-mortar-request-id')
      const recorded = await arrival
      const events: string[] = []
      for await (const event of streamEvents(response)) {
        events.push(event)
        if (events.length === 1) {
          expect(event).toBe(': ping')
          const stop = await fetch(`${gw.url}/v1/generations/${id}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}` } })
          expect(stop.status).toBe(200)
        }
      }
      expect(events.at(-1)).toBe('data: [DONE]')
      const payloads = dataPayloads(events)
      expect(payloads.some((chunk) => 'error' in chunk)).toBe(false)
      expect(payloads.at(-1)).toMatchObject({ usage: { completion_tokens: 0 } })
      await recorded.ended
      expect(recorded.hungUp).toBe(true)
      expect(gw.completions.filter((record) => record.id === id)).toMatchObject([{ outcome: 'stopped' }])
    })
  })

  it('a client that leaves while waiting hangs up on the server', async () => {
    await withGateway([], '100', async (gw) => {
      fake.behavior.mode = 'never-answer'
      const controller = new AbortController()
      const arrival = nextArrival()
      const response = await fetch(`${gw.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${gw.ownerKey}`, 'Content-Type': 'application/json' },
        body: JSON.stringify(userMessage('hi')),
        signal: controller.signal,
      })
      const id = response.headers.get('x-mortar-request-id')
      const recorded = await arrival
      const events = streamEvents(response)
      expect((await events.next()).value).toBe(': ping')
      controller.abort()
      await recorded.ended
      expect(recorded.hungUp).toBe(true)
      await gw.server.gateway.generations.whenIdle()
      expect(gw.completions.filter((record) => record.id === id)).toMatchObject([{ outcome: 'client_disconnected' }])
    })
  })
})

describe('the real 10 s interval', () => {
  it('a server that sends no headers for 12.5 s: 200 and a ping at 10 s, then the reply; the same then failing: one upstream_error, no [DONE]', { timeout: 40_000 }, async () => {
    await withGateway([], undefined, async (gw) => {
      fake.behavior.headersDelayMs = 12_500
      const timed = async () => {
        const sent = performance.now()
        const response = await gw.post('/v1/chat/completions', userMessage('hi'))
        const headersAt = performance.now() - sent
        const arrivals: Array<{ event: string; at: number }> = []
        for await (const event of streamEvents(response)) arrivals.push({ event, at: performance.now() - sent })
        return { status: response.status, headersAt, arrivals }
      }
      let arrival = nextArrival()
      const replying = timed()
      await arrival
      fake.behavior.mode = 'error-500'
      arrival = nextArrival()
      const failing = timed()
      await arrival

      for (const { status, headersAt, arrivals } of [await replying, await failing]) {
        expect(status).toBe(200)
        expect(headersAt).toBeGreaterThan(9_800)
        expect(headersAt).toBeLessThan(11_000)
        expect(arrivals[0]?.event).toBe(': ping')
        expect(arrivals[0]!.at).toBeLessThan(11_000)
        expect(arrivals.filter((arrival) => isPing(arrival.event))).toHaveLength(1)
        expect(arrivals[1]!.at).toBeGreaterThan(12_400)
      }
      const reply = (await replying).arrivals.map((arrival) => arrival.event)
      expect(reply.at(-1)).toBe('data: [DONE]')
      expect(reply.some((event) => event.includes('"content":"Hello"'))).toBe(true)
      const failure = (await failing).arrivals.map((arrival) => arrival.event)
      expect(failure.filter((event) => !isPing(event))).toHaveLength(1)
      expect(dataPayloads(failure)).toMatchObject([{ error: { type: 'upstream_error', code: 'upstream_error' } }])
    })
  })
})
