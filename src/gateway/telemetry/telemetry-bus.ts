import type { ServerResponse } from 'node:http'
import type { TelemetryEvent } from '../../shared/api/telemetry'
import type { ClusterFanout } from '../cluster/cluster-event-relay'
import { SubscriptionCaps } from '../sse/subscription-caps'

export interface TelemetryFilter {
  session?: string | undefined
  model?: string | undefined
}

interface Subscriber {
  org: string
  keyId: string
  filter: TelemetryFilter
  res: ServerResponse
}

/**
 * At most this many open subscriptions per key and per organization: each one costs every
 * publish a write and up to SUBSCRIBER_BUFFER_LIMIT of memory while unread, so an uncapped key
 * could slow every request down (1,000 unread subscriptions took throughput from ~2,200 to ~21
 * requests/s). A UI tab or a dashboard needs one.
 */
export const MAX_SUBSCRIPTIONS_PER_KEY = 16
export const MAX_SUBSCRIPTIONS_PER_ORG = 64

/** Past this much unsent output, a subscriber is too slow and is dropped. */
export const SUBSCRIBER_BUFFER_LIMIT = 1024 * 1024

/**
 * Fan-out of serving events to `GET /v1/telemetry` subscribers, scoped by organization and filtered
 * by session and model. Publishing never waits on a subscriber: each event is one write, and a
 * subscriber whose socket has more than SUBSCRIBER_BUFFER_LIMIT bytes unsent is told so and
 * disconnected — a slow reader can neither grow memory without bound nor slow requests down.
 */
export class TelemetryBus {
  private readonly subscribers = new Set<Subscriber>()
  readonly caps = new SubscriptionCaps('/v1/telemetry', {
    perKey: MAX_SUBSCRIPTIONS_PER_KEY,
    perOrg: MAX_SUBSCRIPTIONS_PER_ORG,
    total: Infinity,
  })

  private cluster: { instance: string; fanout: ClusterFanout<TelemetryEvent> } | undefined

  get size(): number {
    return this.subscribers.size
  }

  /** Whether an event published now reaches anyone: a subscriber here, or on another instance of the cluster. */
  get wanted(): boolean {
    return this.subscribers.size > 0 || (this.cluster?.fanout.wantedElsewhere ?? false)
  }

  /**
   * Share events with the other instances of a cluster: this instance's events go out marked with
   * its name, and theirs arrive through `deliver`.
   */
  joinCluster(instance: string, fanout: ClusterFanout<TelemetryEvent>): void {
    this.cluster = { instance, fanout }
  }

  /** How many subscribers an organization has (for tests and the status of the gateway). */
  subscriberCount(org: string): number {
    return this.caps.countOf(org)
  }

  /**
   * Adds a subscriber; returns the function that removes it. Throws a 429 GatewayError, before
   * anything is written, when the key or its organization has as many as it may.
   */
  subscribe(principal: { org: string; keyId: string }, filter: TelemetryFilter, res: ServerResponse): () => void {
    const { org, keyId } = principal
    const subscriber: Subscriber = { org, keyId, filter, res }
    this.caps.admit(subscriber)
    this.subscribers.add(subscriber)
    this.cluster?.fanout.localSubscribers(this.subscribers.size)
    return () => this.remove(subscriber)
  }

  private remove(subscriber: Subscriber): void {
    if (!this.subscribers.delete(subscriber)) return
    this.caps.release(subscriber)
    this.cluster?.fanout.localSubscribers(this.subscribers.size)
  }

  /** An event of this instance: to its subscribers, and in a cluster to the other instances'. */
  publish(event: TelemetryEvent): void {
    const { cluster } = this
    if (cluster === undefined) return this.deliver(event)
    const marked = { ...event, instance: cluster.instance }
    this.deliver(marked)
    cluster.fanout.forward(marked, marked.org)
  }

  /** An event to this instance's subscribers only (another instance's, relayed). */
  deliver(event: TelemetryEvent): void {
    if (this.subscribers.size === 0) return
    let frame: string | undefined
    for (const subscriber of this.subscribers) {
      const { org, filter, res } = subscriber
      if (org !== event.org) continue
      if (filter.session !== undefined && filter.session !== event.session) continue
      if (filter.model !== undefined && filter.model !== event.model) continue
      frame ??= `data: ${JSON.stringify(event)}\n\n`
      if (!sendToSubscriber(res, frame)) this.remove(subscriber)
    }
  }

  /** End every subscription (shutdown), so their connections close. */
  closeAll(): void {
    for (const { res } of this.subscribers) if (!res.writableEnded) res.end()
    for (const subscriber of [...this.subscribers]) this.remove(subscriber)
  }
}

/**
 * Write one event to a live subscriber without ever waiting on it. False when the subscriber is
 * gone, or was too slow (more than SUBSCRIBER_BUFFER_LIMIT unsent) and has just been told so and
 * disconnected: the caller forgets it.
 */
export function sendToSubscriber(res: ServerResponse, frame: string): boolean {
  if (res.destroyed || res.writableEnded) return false
  if (res.writableLength > SUBSCRIBER_BUFFER_LIMIT) {
    res.end(': dropped: this subscriber read too slowly\n\n')
    return false
  }
  res.write(frame)
  return true
}
