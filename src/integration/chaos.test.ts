import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer, type RecordedRequest } from '../test-kit/fake-model-server'
import { startTestGateway, streamEvents, userMessage, type TestGateway } from './harness'

// Under load: clients that hang up at random moments, a replica killed and restarted mid-run.
// Afterwards: no upstream request is left running for a client that is gone, no stream ended with
// a made-up stop, the gateway kept serving, and it holds nothing.

let a: FakeModelServer
let b: FakeModelServer
let gw: TestGateway
beforeAll(async () => {
  const slow = { deltas: Array.from({ length: 40 }, (_, i) => ` t${i}`), deltaDelayMs: 5 }
  a = await startFakeModelServer({ name: 'a', ...slow })
  b = await startFakeModelServer({ name: 'b', ...slow })
  gw = await startTestGateway(['--upstream', a.url, '--upstream', b.url, '--upstream-timeout', '2'])
})
afterAll(async () => {
  await gw.close()
  await a.close()
  await b.close()
})

/** A deterministic pseudo-random sequence, so a failure can be replayed. */
function random(seed: number) {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff
    return state / 0x7fffffff
  }
}

type Ending = 'complete' | 'hung-up' | 'upstream-error' | 'refused'

async function oneStream(session: string, hangUpAfter: number | undefined): Promise<{ ending: Ending; events: string[] }> {
  const controller = new AbortController()
  let response: Response
  try {
    response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gw.ownerKey}`, 'X-Mortar-Session': session },
      body: JSON.stringify(userMessage('chaos')),
      signal: controller.signal,
    })
  } catch {
    return { ending: 'hung-up', events: [] }
  }
  if (response.status !== 200) return { ending: 'refused', events: [await response.text()] }
  const events: string[] = []
  try {
    for await (const event of streamEvents(response)) {
      events.push(event)
      if (hangUpAfter !== undefined && events.length >= hangUpAfter) {
        controller.abort()
        return { ending: 'hung-up', events }
      }
    }
  } catch {
    return { ending: 'hung-up', events }
  }
  if (events.at(-1) === 'data: [DONE]') return { ending: 'complete', events }
  return { ending: 'upstream-error', events }
}

describe('chaos', () => {
  it('survives random hang-ups and a replica dying under load', { timeout: 60_000 }, async () => {
    const next = random(42)
    const before = { a: a.requests.length, b: b.requests.length }
    const runs: Array<Promise<{ ending: Ending; events: string[] }>> = []
    for (let i = 0; i < 120; i++) {
      const hangUpAfter = next() < 0.4 ? 1 + Math.floor(next() * 30) : undefined
      runs.push(oneStream(`chaos-${i % 30}`, hangUpAfter))
      if (i === 50) {
        // Kill a replica while streams are running through it; bring it back a little later.
        await a.kill()
      }
      if (i === 90) await a.restart()
      if (i % 10 === 0) await new Promise((resolve) => setImmediate(resolve))
    }
    const results = await Promise.all(runs)

    // Every stream ended one of the allowed ways, and never with a fake stop after an error.
    for (const { ending, events } of results) {
      if (ending === 'complete') {
        expect(events.some((e) => e.includes('"finish_reason":"stop"'))).toBe(true)
        expect(events.some((e) => e.includes('"error"'))).toBe(false)
      }
      if (ending === 'upstream-error') {
        const last = events.at(-1) ?? ''
        expect(last).toContain('"upstream_error"')
        expect(events.some((e) => e.includes('"finish_reason":"stop"'))).toBe(false)
      }
    }
    const count = (ending: Ending) => results.filter((r) => r.ending === ending).length
    expect(count('complete')).toBeGreaterThan(30)
    expect(count('hung-up')).toBeGreaterThan(20)
    expect(count('refused')).toBe(0)

    // The gateway keeps serving, through the replica that survived or came back.
    const after = await oneStream('chaos-after', undefined)
    expect(after.ending).toBe('complete')

    // Nothing is left running: every upstream exchange has ended, and the gateway holds nothing.
    const exchanges: RecordedRequest[] = [...a.requests.slice(before.a), ...b.requests.slice(before.b)]
    await Promise.all(exchanges.map((r) => r.ended))
    await gw.server.gateway.generations.whenIdle()
    expect(gw.server.gateway.stats()).toEqual({ liveGenerations: 0, dedupeGroups: 0, telemetrySubscribers: 0, capturing: 0 })
    // Hang-ups reached the model servers: as many upstream requests were hung up on as clients left
    // mid-stream (some left before their request reached a server, so at most that many).
    const hungUpUpstream = exchanges.filter((r) => r.hungUp).length
    expect(hungUpUpstream).toBeGreaterThan(0)
    expect(hungUpUpstream).toBeLessThanOrEqual(count('hung-up'))
  })

  it('times out on a stalled replica (hanging up on it) while serving the other without delay', { timeout: 20_000 }, async () => {
    // Its own gateway: the first test left replica a marked down for a while.
    const gw = await startTestGateway(['--upstream', a.url, '--upstream', b.url, '--upstream-timeout', '2'])
    const placement = async (session: string) =>
      (await gw.post('/v1/chat/completions', { ...userMessage('x'), stream: false }, { 'X-Mortar-Session': session })).headers.get('x-mortar-upstream')
    const onA: string[] = []
    const onB: string[] = []
    for (let i = 0; (onA.length === 0 || onB.length === 0) && i < 100; i++) {
      const session = `stall-${i}`
      ;((await placement(session)) === a.host ? onA : onB).push(session)
    }
    a.behavior.mode = 'never-answer'
    try {
      const before = a.requests.length
      const stalled = gw.post('/v1/chat/completions', { ...userMessage('x'), stream: false }, { 'X-Mortar-Session': onA[0]! })
      let stalledSettled = false
      void stalled.finally(() => (stalledSettled = true))
      const stalledRequest = await a.requestAt(before)
      // The other replica answers while the stalled one is still being waited on (its 2 s timeout).
      const healthy = await gw.post('/v1/chat/completions', { ...userMessage('x'), stream: false }, { 'X-Mortar-Session': onB[0]! })
      expect(healthy.status).toBe(200)
      expect(stalledSettled).toBe(false)
      const timedOut = await stalled
      expect(timedOut.status).toBe(504)
      expect(((await timedOut.json()) as { error: { code: string } }).error.code).toBe('upstream_timeout')
      await stalledRequest.ended
      expect(stalledRequest.hungUp).toBe(true)
    } finally {
      a.behavior.mode = 'normal'
      await gw.close()
    }
  })
})
