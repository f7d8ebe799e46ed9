import { beforeAll, describe, expect, it } from 'vitest'
import type { TelemetryEvent } from '../shared/api/telemetry'
import { defaultFakeBehavior, type FakeModelServer } from '../test-kit/fake-model-server'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { subscribeTelemetry, userMessage, type TestGateway } from './harness'

// Every request the telemetry stream reports as accepted gets exactly one ending event, however
// it ended — including a model server that refused or never answered before the reply began.

let fake: FakeModelServer
let gw: TestGateway
beforeAll(async () => {
  const started = await startForwardingGateway({ name: 'endings' }, ['--upstream-timeout', '0.3'])
  fake = started.fake
  gw = started.gw
  return started.close
})

const ENDINGS = new Set(['request.finished', 'request.stopped', 'request.client_disconnected', 'request.shutdown', 'request.failed'])

describe('telemetry endings when the model server fails before the reply', () => {
  it('sends one request.failed per accepted request for 502, 503 and 504, streaming and not, and for a dedupe leader', async () => {
    const sub = await subscribeTelemetry(gw, gw.ownerKey, '?session=endings')
    const session = { 'X-Mortar-Session': 'endings' }
    const cases: Array<{ name: string; status: number; code: string; arrange: () => Promise<void>; body: { stream: boolean }; headers?: Record<string, string> }> = []
    for (const stream of [true, false]) {
      cases.push(
        { name: `error status, stream ${stream}`, status: 502, code: 'upstream_error', arrange: async () => void (fake.behavior.mode = 'error-500'), body: { stream } },
        { name: `unreachable, stream ${stream}`, status: 503, code: 'upstream_unavailable', arrange: () => fake.kill(), body: { stream } },
        { name: `no headers in time, stream ${stream}`, status: 504, code: 'upstream_timeout', arrange: async () => void (fake.behavior.mode = 'never-answer'), body: { stream } },
      )
    }
    cases.push({
      name: 'dedupe leader refused',
      status: 502,
      code: 'upstream_error',
      arrange: async () => void (fake.behavior.mode = 'error-500'),
      body: { stream: false },
      headers: { 'X-Mortar-Dedupe': 'in-flight', 'Idempotency-Key': 'endings-1' },
    })

    for (const c of cases) {
      fake.behavior = { ...defaultFakeBehavior(), name: 'endings' }
      await fake.restart()
      await c.arrange()
      const response = await gw.post('/v1/chat/completions', { ...userMessage(c.name), ...c.body }, { ...session, ...c.headers })
      expect(response.status, c.name).toBe(c.status)
      expect(((await response.json()) as { error: { code: string } }).error.code, c.name).toBe(c.code)
      const accepted = await sub.next()
      expect(accepted, c.name).toMatchObject({ type: 'request.accepted', stream: c.body.stream })
      const ended = await sub.next()
      expect(ended, c.name).toMatchObject({ type: 'request.failed', id: accepted.id, error_code: c.code, finish_reason: null, upstream: null })
    }

    // Then a request that works: its events come next, so nothing else was published meanwhile.
    fake.behavior = { ...defaultFakeBehavior(), name: 'endings' }
    await fake.restart()
    const ok = await gw.post('/v1/chat/completions', { ...userMessage('fine'), stream: false }, session)
    expect(ok.status).toBe(200)
    let last: TelemetryEvent
    do last = await sub.next()
    while (!ENDINGS.has(last.type))
    expect(last).toMatchObject({ type: 'request.finished', id: ok.headers.get('x-mortar-request-id') })

    const accepted = sub.received.filter((e) => e.type === 'request.accepted').map((e) => e.id)
    const ended = sub.received.filter((e) => ENDINGS.has(e.type)).map((e) => e.id)
    expect(accepted).toHaveLength(cases.length + 1)
    expect(ended).toEqual(accepted)
    sub.close()
  })
})
