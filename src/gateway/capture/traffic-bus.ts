import type { ServerResponse } from 'node:http'
import type { TrafficEvent } from '../../shared/api/traffic'
import type { ClusterFanout } from '../cluster/cluster-event-relay'
import { SubscriptionCaps, type Subscriber, type SubscriptionLimits } from '../sse/subscription-caps'
import { sendToSubscriber } from '../telemetry/telemetry-bus'
import { visibleTo, type Scope } from './exchange-filter'

/**
 * At most this many open GET /v1/traffic/live subscriptions per key, per organization and in all
 * (the same per-key and per-organization numbers as /v1/telemetry): each one costs every
 * exchange's start, updates and end a summary and a write while capture runs. A Traffic view needs one.
 */
export const TRAFFIC_LIVE_LIMITS: SubscriptionLimits = { perKey: 16, perOrg: 64, total: 256 }

/**
 * Fan-out of traffic events to `GET /v1/traffic/live` subscribers, each seeing what its scope may
 * see. Same policy as the telemetry stream: publishing never waits, slow readers are dropped, and
 * a key, an organization and the gateway may hold only so many subscriptions. In a cluster, this
 * instance's events also go to the other instances, and theirs come in through `deliver`, scoped
 * by the same rule.
 */
export class TrafficBus {
  private readonly subscribers = new Map<ServerResponse, { scope: Scope; subscriber: Subscriber }>()
  readonly caps = new SubscriptionCaps('/v1/traffic/live', TRAFFIC_LIVE_LIMITS)
  private cluster: ClusterFanout<TrafficEvent> | undefined

  get size(): number {
    return this.subscribers.size
  }

  /**
   * Whether an event published now reaches anyone: a subscriber here, or on another instance of
   * the cluster. Events are built only when it is true, so with nobody listening anywhere capture
   * costs one check per event.
   */
  get wanted(): boolean {
    return this.subscribers.size > 0 || (this.cluster?.wantedElsewhere ?? false)
  }

  /** Share events with the other instances of a cluster. */
  joinCluster(fanout: ClusterFanout<TrafficEvent>): void {
    this.cluster = fanout
    fanout.localSubscribers(this.subscribers.size)
  }

  /** Adds a subscriber; returns the function that removes it. Throws the 429 GatewayError, before anything is written, past a cap. */
  subscribe(subscriber: Subscriber, scope: Scope, res: ServerResponse): () => void {
    this.caps.admit(subscriber)
    this.subscribers.set(res, { scope, subscriber })
    this.cluster?.localSubscribers(this.subscribers.size)
    return () => this.remove(res)
  }

  /**
   * An event of this instance: to its subscribers, and in a cluster to the other instances'.
   * `org` null: an exchange without a valid key; undefined: an event for every subscriber.
   */
  publish(event: TrafficEvent, org: string | null | undefined): void {
    this.deliver(event, org)
    this.cluster?.forward(event, org)
  }

  /** An event to this instance's subscribers only (this instance's, or another's relayed), `org` as for `publish`. */
  deliver(event: TrafficEvent, org: string | null | undefined): void {
    if (this.subscribers.size === 0) return
    let frame: string | undefined
    for (const [res, { scope }] of this.subscribers) {
      if (org !== undefined && !visibleTo(scope, org)) continue
      frame ??= `data: ${JSON.stringify(event)}\n\n`
      if (!sendToSubscriber(res, frame)) this.remove(res)
    }
  }

  closeAll(): void {
    for (const res of [...this.subscribers.keys()]) {
      if (!res.writableEnded) res.end()
      this.remove(res)
    }
  }

  private remove(res: ServerResponse): void {
    const entry = this.subscribers.get(res)
    if (entry === undefined) return
    this.subscribers.delete(res)
    this.caps.release(entry.subscriber)
    this.cluster?.localSubscribers(this.subscribers.size)
  }
}
