import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_SUBSCRIPTIONS_PER_KEY, MAX_SUBSCRIPTIONS_PER_ORG, type TelemetryBus } from '../gateway/telemetry/telemetry-bus'
import { startTestGateway, type TestGateway } from './harness'
import { expectEnvelope } from '../test-kit/expect-envelope'

// Every open /v1/telemetry subscription costs each publish a write: a key (and an organization)
// may hold only so many; past that, a plain 429 in the OpenAI envelope, before any SSE header.

let gw: TestGateway
let bus: TelemetryBus
/** Told of each subscription the bus removes. */
const onRemoved = new Set<() => void>()
beforeAll(async () => {
  gw = await startTestGateway()
  bus = gw.server.gateway.telemetry
  const original = bus.subscribe.bind(bus)
  bus.subscribe = (...args) => {
    const unsubscribe = original(...args)
    return () => {
      unsubscribe()
      for (const listener of onRemoved) listener()
    }
  }
})
afterAll(() => gw.close())

/** Resolves once the bus has removed `count` more subscriptions: the server saw the clients leave. */
function removals(count: number): Promise<void> {
  let left = count
  return new Promise((resolve) => {
    const listener = () => {
      if (--left > 0) return
      onRemoved.delete(listener)
      resolve()
    }
    onRemoved.add(listener)
  })
}

interface Subscription {
  response: Response
  close(): Promise<void>
}

async function subscribe(key: string): Promise<Subscription> {
  const controller = new AbortController()
  const response = await fetch(`${gw.url}/v1/telemetry`, { headers: { Authorization: `Bearer ${key}` }, signal: controller.signal })
  return {
    response,
    close: async () => {
      controller.abort()
      await response.body?.cancel().catch(() => undefined)
    },
  }
}

const expectRefused = (response: Response, scope: string) =>
  expectEnvelope(response, { status: 429, retry: false, type: 'rate_limit_error', code: 'too_many_subscriptions', param: null, message: `This ${scope} already has` })

describe('telemetry subscription caps', () => {
  it(`lets one key hold ${MAX_SUBSCRIPTIONS_PER_KEY} subscriptions, refuses the next with 429, and admits one again after a close`, async () => {
    const org = 'capped-key-org'
    const key = gw.createKey({ org, role: 'member' })
    const open: Subscription[] = []
    for (let i = 0; i < MAX_SUBSCRIPTIONS_PER_KEY; i++) {
      const subscription = await subscribe(key)
      expect(subscription.response.status).toBe(200)
      open.push(subscription)
    }
    expect(bus.subscriberCount(org)).toBe(MAX_SUBSCRIPTIONS_PER_KEY)
    await expectRefused((await subscribe(key)).response, 'key')
    expect(bus.subscriberCount(org)).toBe(MAX_SUBSCRIPTIONS_PER_KEY)
    // Another key of the same organization is not held to this key's cap.
    const other = await subscribe(gw.createKey({ org, role: 'member' }))
    expect(other.response.status).toBe(200)

    const oneRemoved = removals(1)
    await open.pop()!.close()
    await oneRemoved
    const again = await subscribe(key)
    expect(again.response.status).toBe(200)
    open.push(again, other)
    const allRemoved = removals(open.length)
    await Promise.all(open.map((subscription) => subscription.close()))
    await allRemoved
    expect(bus.subscriberCount(org)).toBe(0)
  })

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
