import { GatewayError } from '../errors'

/** How many open subscriptions of one stream a key, an organization and the whole gateway may hold. */
export interface SubscriptionLimits {
  perKey: number
  perOrg: number
  total: number
}

export interface Subscriber {
  org: string
  keyId: string
}

/**
 * Counts the open subscriptions of one long-lived stream (`/v1/telemetry`, `/v1/traffic/live`…)
 * by key, by organization and in all, and refuses one more past a limit: each subscription costs
 * every publish a write and up to the subscriber buffer limit of memory while unread, so an
 * uncapped client could slow every request down. The refusal is a plain 429 in the OpenAI
 * envelope, thrown before any SSE header is written.
 */
export class SubscriptionCaps {
  private readonly perKey = new Counter()
  private readonly perOrg = new Counter()
  private total = 0

  constructor(
    /** The stream as a client names it, for the refusal's message: `/v1/telemetry`. */
    private readonly stream: string,
    readonly limits: SubscriptionLimits,
  ) {}

  get size(): number {
    return this.total
  }

  /** How many subscriptions an organization holds. */
  countOf(org: string): number {
    return this.perOrg.of(org)
  }

  /** Counts one more subscription, or throws the 429 when the key, its organization or the gateway is at its limit. */
  admit(subscriber: Subscriber): void {
    const { perKey, perOrg, total } = this.limits
    if (this.perKey.of(subscriber.keyId) >= perKey) throw this.refusal(`This key already has ${perKey}`)
    if (this.perOrg.of(subscriber.org) >= perOrg) throw this.refusal(`This organization already has ${perOrg}`)
    if (this.total >= total) throw this.refusal(`The gateway already has ${total}`)
    this.perKey.add(subscriber.keyId, 1)
    this.perOrg.add(subscriber.org, 1)
    this.total++
  }

  release(subscriber: Subscriber): void {
    this.perKey.add(subscriber.keyId, -1)
    this.perOrg.add(subscriber.org, -1)
    this.total--
  }

  private refusal(holder: string): GatewayError {
    return new GatewayError(
      'too_many_subscriptions',
      `${holder} open ${this.stream} subscriptions, the most the gateway allows. Close one (end its request) before opening another.`,
    )
  }
}

/** Counts by name, forgetting a name whose count is back to zero. */
class Counter {
  private readonly counts = new Map<string, number>()

  of(name: string): number {
    return this.counts.get(name) ?? 0
  }

  add(name: string, delta: number): void {
    const count = this.of(name) + delta
    if (count === 0) this.counts.delete(name)
    else this.counts.set(name, count)
  }
}
