import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CapturedFrame, Exchange, ExchangeFollowEvent, TrafficEvent } from '../shared/api/traffic'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { startTestGateway, streamEvents, userMessage, type TestGateway } from './harness'
import { endOf, trafficClient, type EventStream, type LiveTraffic } from './traffic-client'

// A running exchange is visible while it runs: announced once its caller is known, updated as
// its facts arrive, listed (outcome in_progress), and followable frame by frame until it settles
// to its final record. The scripted model is paced (20 tokens/s) so each reply lasts seconds; the
// tests wait for events, never for time. Deadlines are generous: the machine is shared.

const DEADLINE = 10_000
let gw: TestGateway
let live: LiveTraffic
let counter = 0
const requestId = () => `req-running-${++counter}`

beforeAll(async () => {
  gw = await startTestGateway(['--scripted-tps', '20'])
  live = await trafficClient(gw.url, gw.ownerKey).live()
})
afterAll(async () => {
  live.close()
  await gw.close()
})

const ofRequest = (type: TrafficEvent['type'], id: string, also: (event: TrafficEvent) => boolean = () => true) => (event: TrafficEvent) =>
  event.type === type && 'exchange' in event && event.exchange.request_id === id && also(event)

const rawOf = (frames: readonly CapturedFrame[]) => frames.map((frame) => frame.raw)

/** Everything a follower was told, put together: the last snapshot plus the frames after it. */
function followed(events: readonly ExchangeFollowEvent[]): { frames: string[]; upstream: string[]; framesEvents: number } {
  let frames: string[] = []
  let upstream: string[] = []
  let framesEvents = 0
  for (const event of events) {
    if (event.type === 'exchange.snapshot') {
      frames = rawOf(event.exchange.response.frames)
      upstream = rawOf(event.exchange.upstream?.frames ?? [])
    } else if (event.type === 'exchange.frames') {
      framesEvents++
      frames.push(...rawOf(event.frames))
      upstream.push(...rawOf(event.upstream_frames))
    }
  }
  return { frames, upstream, framesEvents }
}

describe('a running exchange', () => {
  it('is announced once its caller is known, updated with its status, listed as in_progress, and ends', async () => {
    const id = requestId()
    const response = await gw.post('/v1/chat/completions', { ...userMessage('word '.repeat(60)), stream: true }, { 'x-request-id': id })
    const started = await live.next(ofRequest('exchange.started', id), DEADLINE)
    if (started.type !== 'exchange.started') throw new Error('unreachable')
    expect(started.exchange).toMatchObject({ outcome: 'in_progress', status: null, duration_ms: null, client: { kind: 'key' } })
    const updated = await live.next(ofRequest('exchange.updated', id, (e) => 'exchange' in e && e.exchange.status === 200), DEADLINE)
    expect(updated.type === 'exchange.updated' && updated.exchange).toMatchObject({ id: started.exchange.id, outcome: 'in_progress', model: DEFAULT_MODEL_ID, stream: true })

    const listed = await trafficClient(gw.url, gw.ownerKey).list()
    expect(listed.data.find((row) => row.id === started.exchange.id)).toMatchObject({ outcome: 'in_progress', status: 200 })
    // Held to the filters like any other row.
    expect((await trafficClient(gw.url, gw.ownerKey).list({ outcome: 'finished' })).data.map((row) => row.id)).not.toContain(started.exchange.id)
    expect((await trafficClient(gw.url, gw.ownerKey).list({ outcome: 'in_progress' })).data.map((row) => row.id)).toContain(started.exchange.id)
    // Another organization does not see it running either.
    const stranger = trafficClient(gw.url, gw.createKey({ org: 'elsewhere', role: 'owner' }))
    expect((await stranger.list()).data).toEqual([])

    await response.text()
    const ended = await live.next(endOf(id), DEADLINE)
    expect(ended.type === 'exchange.ended' && ended.exchange.outcome).toBe('finished')
    const listedAfter = (await trafficClient(gw.url, gw.ownerKey).list()).data.filter((row) => row.id === started.exchange.id)
    expect(listedAfter.map((row) => row.outcome)).toEqual(['finished'])
  })

  it('can be followed: its snapshot, each frame as it is written (before the end), then the final record', async () => {
    const id = requestId()
    const response = await gw.post('/v1/chat/completions', { ...userMessage('word '.repeat(60)), stream: true }, { 'x-request-id': id })
    const started = await live.next(ofRequest('exchange.started', id), DEADLINE)
    if (started.type !== 'exchange.started') throw new Error('unreachable')
    const follow = await trafficClient(gw.url, gw.ownerKey).follow(started.exchange.id)
    try {
      const snapshot = await follow.next((event) => event.type === 'exchange.snapshot', DEADLINE)
      expect(snapshot.type === 'exchange.snapshot' && snapshot.exchange).toMatchObject({ id: started.exchange.id, outcome: 'in_progress' })
      // Frames arrive while the reply is still being written: the client has not read its end yet.
      const client = streamEvents(response)
      await client.next()
      const frames = await follow.next((event) => event.type === 'exchange.frames' && event.frames.length > 0, DEADLINE)
      expect(frames.type).toBe('exchange.frames')
      expect(follow.events.some((event) => event.type === 'exchange.ended')).toBe(false)
      for await (const event of client) if (event === 'data: [DONE]') break

      const ended = await follow.next((event) => event.type === 'exchange.ended', DEADLINE)
      await follow.ended
      if (ended.type !== 'exchange.ended') throw new Error('unreachable')
      expect(ended.exchange.outcome).toBe('finished')
      expect(follow.events.at(-1)).toBe(ended)
      // What the follower put together is the record, frame for frame.
      const before = follow.events.slice(0, -1)
      const { frames: assembled, framesEvents } = followed(before)
      expect(framesEvents).toBeGreaterThan(0)
      const final = rawOf(ended.exchange.response.frames)
      expect(final.slice(0, assembled.length)).toEqual(assembled)
      expect(final.at(-1)).toBe('data: [DONE]\n\n')
      expect(await trafficClient(gw.url, gw.ownerKey).exchange(started.exchange.id)).toEqual(ended.exchange)
    } finally {
      follow.close()
    }
  })

  it('a follower sees a client hang up: the record ends disconnected', async () => {
    const id = requestId()
    const controller = new AbortController()
    const response = await fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gw.ownerKey}`, 'x-request-id': id },
      body: JSON.stringify({ ...userMessage('word '.repeat(60)), stream: true }),
      signal: controller.signal,
    })
    const started = await live.next(ofRequest('exchange.started', id), DEADLINE)
    if (started.type !== 'exchange.started') throw new Error('unreachable')
    const follow = await trafficClient(gw.url, gw.ownerKey).follow(started.exchange.id)
    await follow.next((event) => event.type === 'exchange.snapshot', DEADLINE)
    await streamEvents(response).next()
    controller.abort()
    const ended = await follow.next((event) => event.type === 'exchange.ended', DEADLINE)
    expect(ended.type === 'exchange.ended' && ended.exchange.outcome).toBe('disconnected')
    await follow.ended
  })

  it('an exchange that has ended is followed with its final record at once; another organization gets 404', async () => {
    const id = requestId()
    const response = await gw.post('/v1/chat/completions', { ...userMessage('short'), stream: false }, { 'x-request-id': id })
    await response.text()
    const ended = await live.next(endOf(id), DEADLINE)
    if (ended.type !== 'exchange.ended') throw new Error('unreachable')
    const follow = await trafficClient(gw.url, gw.ownerKey).follow(ended.exchange.id)
    await follow.ended
    expect(follow.events.map((event) => event.type)).toEqual(['exchange.ended'])
    const stranger = trafficClient(gw.url, gw.createKey({ org: 'elsewhere', role: 'owner' }))
    const refused = await stranger.get(`/v1/traffic/exchanges/${ended.exchange.id}/live`)
    expect(refused.status).toBe(404)
    expect(await refused.json()).toMatchObject({ error: { code: 'exchange_not_found' } })
  })
})

describe('a running exchange of an upstream deployment', () => {
  let upstream: TestGateway
  beforeAll(async () => {
    const started = await startForwardingGateway({ deltas: Array.from({ length: 12 }, (_, i) => `piece ${i} `), deltaDelayMs: 150 })
    upstream = started.gw
    return started.close
  })

  it("a follower also gets the model server's frames as they are read, and they add up to the record", async () => {
    const upstreamLive = await trafficClient(upstream.url, upstream.ownerKey).live()
    let follow: EventStream<ExchangeFollowEvent> | undefined
    try {
      const id = requestId()
      const response = await upstream.post('/v1/chat/completions', { ...userMessage('hello'), stream: true }, { 'x-request-id': id })
      const started = await upstreamLive.next(ofRequest('exchange.started', id), DEADLINE)
      if (started.type !== 'exchange.started') throw new Error('unreachable')
      follow = await trafficClient(upstream.url, upstream.ownerKey).follow(started.exchange.id)
      await follow.next((event) => event.type === 'exchange.frames' && event.upstream_frames.length > 0, DEADLINE)
      expect(follow.events.some((event) => event.type === 'exchange.ended')).toBe(false)
      await response.text()
      const ended = await follow.next((event) => event.type === 'exchange.ended', DEADLINE)
      if (ended.type !== 'exchange.ended') throw new Error('unreachable')
      const final: Exchange = ended.exchange
      const { upstream: assembled } = followed(follow.events.slice(0, -1))
      expect(rawOf(final.upstream?.frames ?? []).slice(0, assembled.length)).toEqual(assembled)
      expect(assembled.length).toBeGreaterThan(0)
    } finally {
      follow?.close()
      upstreamLive.close()
    }
  })
})
