import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { TrafficPath } from '../shared/api/traffic'
import { TRAFFIC_LIVE_LIMITS } from '../gateway/capture/traffic-bus'
import { startTestGateway, type TestGateway } from './harness'
import { expectKeyCap, expectTooManySubscriptions, openSubscription, releaseWatcher, type Subscription } from './subscription-caps-kit'

// Every open /v1/traffic/live subscription costs each exchange's events a summary and a write: a
// key, an organization and the whole gateway may hold only so many; past that, a plain 429 in the
// OpenAI envelope, before any SSE header. The same caps hold for following one exchange.

const { perKey, perOrg, total } = TRAFFIC_LIVE_LIMITS
let gw: TestGateway
let watcher: ReturnType<typeof releaseWatcher>
const releases = (count: number) => watcher.releases(count)

beforeAll(async () => {
  gw = await startTestGateway()
  watcher = releaseWatcher(gw.server.gateway.capture.live.caps, gw.server.gateway.capture.follows)
})
afterAll(() => gw.close())

const subscribe = (key: string, path: string = TrafficPath.live) => openSubscription(`${gw.url}${path}`, key)
const expectRefused = (response: Response, holder: string, stream = '/v1/traffic/live') => expectTooManySubscriptions(response, holder, stream)

async function closeAll(open: Subscription[]): Promise<void> {
  const released = releases(open.length)
  await Promise.all(open.map((subscription) => subscription.close()))
  await released
}

describe('/v1/traffic/live subscription caps', () => {
  it('a subscription lasts as long as its key: revoked, it gets the 401 error event and ends', async () => {
    const { key, record } = gw.server.keys.create({ name: 'watcher', role: 'member' })
    const subscription = await subscribe(key)
    expect(subscription.response.status).toBe(200)
    const released = releases(1)
    const revoked = await fetch(`${gw.url}/v1/keys/${record.id}/revoke`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(revoked.status).toBe(200)
    const text = await subscription.response.text()
    expect(text).toContain('"code":"revoked_api_key"')
    await released
  })

  it(`lets one key hold ${perKey}, refuses the next with 429, and admits one again after a close`, () =>
    expectKeyCap({
      perKey,
      createKey: (org) => gw.createKey({ org, role: 'member' }),
      subscribe: (key) => subscribe(key),
      expectRefused: (response) => expectRefused(response, 'This key'),
      releases,
      // The gateway's whole count: the test before this one closed all it opened.
      held: () => gw.server.gateway.capture.live.caps.size,
    }))

  it(`caps an organization at ${perOrg} whatever the number of its keys, and the gateway at ${total}`, async () => {
    const orgs = Array.from({ length: total / perOrg }, (_, i) => `org-${i}`)
    const open: Subscription[] = []
    for (const org of orgs) {
      const keys = Array.from({ length: perOrg / perKey + 1 }, () => gw.createKey({ org, role: 'member' }))
      for (let i = 0; i < perOrg; i++) open.push(await subscribe(keys[i % (keys.length - 1)]!))
      await expectRefused((await subscribe(keys.at(-1)!)).response, 'This organization')
    }
    expect(open.every((subscription) => subscription.response.status === 200)).toBe(true)
    expect(gw.server.gateway.capture.live.caps.size).toBe(total)
    // A new organization's first key is refused too: the gateway holds as many as it allows.
    await expectRefused((await subscribe(gw.createKey({ org: 'late-org', role: 'member' }))).response, 'The gateway')
    await closeAll(open)
    expect((await subscribe(gw.createKey({ org: 'late-org', role: 'member' }))).response.status).toBe(200)
  })

  it(`holds following one exchange to the same caps: a key's ${perKey + 1}th follow is refused`, async () => {
    const slow = await startTestGateway(['--scripted-tps', '5'])
    try {
      const controller = new AbortController()
      const running = await fetch(`${slow.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${slow.ownerKey}` },
        body: JSON.stringify({ messages: [{ role: 'user', content: 'word '.repeat(100) }], stream: true }),
        signal: controller.signal,
      })
      expect(running.status).toBe(200)
      const list = (await (await fetch(`${slow.url}${TrafficPath.exchanges}`, { headers: { Authorization: `Bearer ${slow.ownerKey}` } })).json()) as {
        data: Array<{ id: string; outcome: string }>
      }
      const id = list.data.find((row) => row.outcome === 'in_progress')!.id
      const follow = (key: string) =>
        fetch(`${slow.url}${TrafficPath.exchangeLive(id)}`, { headers: { Authorization: `Bearer ${key}` }, signal: controller.signal })
      const key = slow.createKey({ role: 'owner', org: 'default' })
      const open = []
      for (let i = 0; i < perKey; i++) open.push(await follow(key))
      expect(open.map((response) => response.status)).toEqual(Array(perKey).fill(200))
      await expectRefused(await follow(key), 'This key', '/v1/traffic/exchanges/{id}/live')
      expect(slow.server.gateway.capture.follows.size).toBe(perKey)
      controller.abort()
    } finally {
      await slow.close()
    }
  })
})
