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
