import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_SUBSCRIPTIONS_PER_KEY, MAX_SUBSCRIPTIONS_PER_ORG, type TelemetryBus } from '../gateway/telemetry/telemetry-bus'
import { startTestGateway, type TestGateway } from './harness'
import { expectKeyCap, expectTooManySubscriptions, openSubscription, releaseWatcher, type Subscription } from './subscription-caps-kit'

// Every open /v1/telemetry subscription costs each publish a write: a key (and an organization)
// may hold only so many; past that, a plain 429 in the OpenAI envelope, before any SSE header.

let gw: TestGateway
let bus: TelemetryBus
let watcher: ReturnType<typeof releaseWatcher>
const removals = (count: number) => watcher.releases(count)
beforeAll(async () => {
  gw = await startTestGateway()
  bus = gw.server.gateway.telemetry
  watcher = releaseWatcher(bus.caps)
})
afterAll(() => gw.close())

const subscribe = (key: string) => openSubscription(`${gw.url}/v1/telemetry`, key)
const expectRefused = (response: Response, scope: string) => expectTooManySubscriptions(response, `This ${scope}`, '/v1/telemetry')

describe('telemetry subscription caps', () => {
  it(`lets one key hold ${MAX_SUBSCRIPTIONS_PER_KEY} subscriptions, refuses the next with 429, and admits one again after a close`, () =>
    expectKeyCap({
      perKey: MAX_SUBSCRIPTIONS_PER_KEY,
      createKey: (org) => gw.createKey({ org, role: 'member' }),
      subscribe,
      expectRefused: (response) => expectRefused(response, 'key'),
      releases: removals,
      held: (org) => bus.subscriberCount(org),
    }))

  it(`caps an organization at ${MAX_SUBSCRIPTIONS_PER_ORG}, whatever the number of its keys`, async () => {
    const org = 'capped-org'
    const keys = Array.from({ length: MAX_SUBSCRIPTIONS_PER_ORG / MAX_SUBSCRIPTIONS_PER_KEY + 1 }, () => gw.createKey({ org, role: 'member' }))
    const open: Subscription[] = []
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_ORG; i++) open.push(await subscribe(keys[i % (keys.length - 1)]!))
    expect(open.every((subscription) => subscription.response.status === 200)).toBe(true)
    await expectRefused((await subscribe(keys.at(-1)!)).response, 'organization')
    // Other organizations are unaffected.
    const elsewhere = await subscribe(gw.createKey({ org: 'another-org', role: 'member' }))
    expect(elsewhere.response.status).toBe(200)
    open.push(elsewhere)
    const allRemoved = removals(open.length)
    await Promise.all(open.map((subscription) => subscription.close()))
    await allRemoved
  })
})
