import { expect } from 'vitest'
import type { SubscriptionCaps } from '../gateway/sse/subscription-caps'
import { expectEnvelope } from '../test-kit/expect-envelope'

// Helpers for the tests of the caps on long-lived streams (telemetry, traffic): open raw
// subscriptions, check the 429, and know when the server has seen clients leave.

export interface Subscription {
  response: Response
  close(): Promise<void>
}

export async function openSubscription(url: string, key: string): Promise<Subscription> {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` }, signal: controller.signal })
  return {
    response,
    close: async () => {
      controller.abort()
      await response.body?.cancel().catch(() => undefined)
    },
  }
}

/** The refusal past a cap: 429 in the OpenAI envelope, saying who holds how many of which stream. */
export async function expectTooManySubscriptions(response: Response, holder: string, stream: string) {
  const error = await expectEnvelope(response, { status: 429, retry: false, type: 'rate_limit_error', code: 'too_many_subscriptions', param: null, message: `${holder} already has` })
  expect(error.message).toContain(stream)
}

/**
 * Watches the caps' releases: `releases(n)` resolves once `n` more subscriptions were released —
 * the server saw the clients leave — without polling.
 */
export function releaseWatcher(...caps: SubscriptionCaps[]): { releases(count: number): Promise<void> } {
  const listeners = new Set<() => void>()
  for (const cap of caps) {
    const release = cap.release.bind(cap)
    cap.release = (subscriber) => {
      release(subscriber)
      for (const listener of listeners) listener()
    }
  }
  return {
    releases: (count) => {
      let left = count
      return new Promise((resolve) => {
        const listener = () => {
          if (--left > 0) return
          listeners.delete(listener)
          resolve()
        }
        listeners.add(listener)
      })
    },
  }
}

/** What the key-cap check needs of one stream: how to open it, and how to read the server's count. */
export interface KeyCapCase {
  perKey: number
  createKey(org: string): string
  subscribe(key: string): Promise<Subscription>
  /** Checks the 429 a key past its cap gets. */
  expectRefused(response: Response): Promise<void>
  /** Resolves once `count` more subscriptions were released (releaseWatcher). */
  releases(count: number): Promise<void>
  /** How many subscriptions the server holds for `org` (or in all: the check uses a fresh organization). */
  held(org: string): number
}

/**
 * A key holds `perKey` subscriptions, the next is refused with 429, another key of the same
 * organization is not held to the first key's cap, and a close admits one again; all are closed
 * at the end, and the server holds none of them.
 */
export async function expectKeyCap({ perKey, createKey, subscribe, expectRefused, releases, held }: KeyCapCase): Promise<void> {
  const org = 'capped-key-org'
  const key = createKey(org)
  const open: Subscription[] = []
  for (let i = 0; i < perKey; i++) open.push(await subscribe(key))
  expect(open.map((subscription) => subscription.response.status)).toEqual(Array(perKey).fill(200))
  expect(held(org)).toBe(perKey)
  await expectRefused((await subscribe(key)).response)
  expect(held(org)).toBe(perKey)
  // Another key of the same organization is not held to this key's cap.
  const other = await subscribe(createKey(org))
  expect(other.response.status).toBe(200)
  const oneReleased = releases(1)
  await open.pop()!.close()
  await oneReleased
  const again = await subscribe(key)
  expect(again.response.status).toBe(200)
  open.push(again, other)
  const allReleased = releases(open.length)
  await Promise.all(open.map((subscription) => subscription.close()))
  await allReleased
  expect(held(org)).toBe(0)
}
