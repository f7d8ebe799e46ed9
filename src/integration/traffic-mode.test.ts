import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { captureStatusSchema, TrafficPath, type CaptureMode } from '../shared/api/traffic'
import { startTestGateway, userMessage, type TestGateway } from './harness'
import { endOf, trafficClient, type LiveTraffic } from './traffic-client'

// PUT /v1/traffic/mode changes the capture mode of the running gateway, for owner and admin keys:
// no restart, exchanges already running finish into the store open when they end.

const DEADLINE = 10_000
let gw: TestGateway
let live: LiveTraffic
let counter = 0
const requestId = () => `req-mode-${++counter}`

beforeAll(async () => {
  gw = await startTestGateway(['--scripted-tps', '50'])
  live = await trafficClient(gw.url, gw.ownerKey).live()
})
afterAll(async () => {
  live.close()
  await gw.close()
})

const setMode = (mode: unknown, key = gw.ownerKey) =>
  fetch(`${gw.url}${TrafficPath.mode}`, {
    method: 'PUT',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ mode }),
  })

async function switchTo(mode: CaptureMode) {
  const response = await setMode(mode)
  expect(response.status).toBe(200)
  return captureStatusSchema.parse(await response.json())
}

/** Sends a short request; resolves with its X-Request-Id once its response has been read. */
async function request(): Promise<string> {
  const id = requestId()
  const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false }, { 'x-request-id': id })
  await response.text()
  return id
}

const listedRequestIds = async () => (await trafficClient(gw.url, gw.ownerKey).list()).data.map((row) => row.request_id)

describe('changing the capture mode at run time', () => {
  it('off keeps nothing new, memory captures again, disk opens the database; the status says which', async () => {
    const before = await request()
    await live.next(endOf(before), DEADLINE)

    expect(await switchTo('off')).toMatchObject({ mode: 'off', exchanges: 0 })
    const unseen = await request()
    expect(await listedRequestIds()).not.toContain(unseen)

    expect(await switchTo('memory')).toMatchObject({ mode: 'memory', exchanges: 0, limits: { max_bytes: 64 * 1024 * 1024 } })
    const seen = await request()
    await live.next(endOf(seen), DEADLINE)
    expect(await listedRequestIds()).toEqual([seen])

    const disk = await switchTo('disk')
    expect(disk).toMatchObject({ mode: 'disk', limits: { retention_days: 7 } })
    expect(existsSync(join(gw.home, 'traffic.sqlite'))).toBe(true)
    const kept = await request()
    await live.next(endOf(kept), DEADLINE)
    expect(await listedRequestIds()).toEqual([kept])
    const status = captureStatusSchema.parse(await (await trafficClient(gw.url, gw.ownerKey).get(TrafficPath.status)).json())
    expect(status).toMatchObject({ mode: 'disk', exchanges: 1 })
    // The same mode again changes nothing.
    expect(await switchTo('disk')).toMatchObject({ mode: 'disk', exchanges: 1 })
  })

  it('an exchange running during a change ends into the new store', async () => {
    await switchTo('memory')
    const id = requestId()
    const response = await gw.post('/v1/chat/completions', { ...userMessage('word '.repeat(80)), stream: true }, { 'x-request-id': id })
    await live.next((event) => event.type === 'exchange.started' && event.exchange.request_id === id, DEADLINE)
    expect(await switchTo('disk')).toMatchObject({ mode: 'disk' })
    await response.text()
    const ended = await live.next(endOf(id), DEADLINE)
    expect(ended.type === 'exchange.ended' && ended.exchange.outcome).toBe('finished')
    expect(await listedRequestIds()).toContain(id)
    await switchTo('memory')
  })

  it('wants an owner or admin key and a known mode, refused in the OpenAI envelope', async () => {
    const member = await setMode('off', gw.createKey({ role: 'member' }))
    expect(member.status).toBe(403)
    expect(await member.json()).toMatchObject({ error: { type: 'permission_error', code: 'insufficient_role' } })
    const bad = await setMode('tape')
    expect(bad.status).toBe(400)
    expect(await bad.json()).toMatchObject({ error: { type: 'invalid_request_error', param: 'mode' } })
    expect((await setMode('off', gw.createKey({ role: 'admin' }))).status).toBe(200)
    expect((await switchTo('memory')).mode).toBe('memory')
  })
})
