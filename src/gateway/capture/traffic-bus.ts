import type { ServerResponse } from 'node:http'
import type { TrafficEvent } from '../../shared/api/traffic'
import { sendToSubscriber } from '../telemetry/telemetry-bus'
import { visibleTo, type Scope } from './exchange-filter'

/**
 * Fan-out of traffic events to `GET /v1/traffic/live` subscribers, each seeing what its scope may
 * see. Same policy as the telemetry stream: publishing never waits, slow readers are dropped.
 */
export class TrafficBus {
  private readonly subscribers = new Map<ServerResponse, Scope>()

  get size(): number {
    return this.subscribers.size
  }

  subscribe(scope: Scope, res: ServerResponse): () => void {
    this.subscribers.set(res, scope)
    return () => this.subscribers.delete(res)
  }

  /** `org` null: an exchange without a valid key; undefined: an event for every subscriber. */
  publish(event: TrafficEvent, org: string | null | undefined): void {
    let frame: string | undefined
    for (const [res, scope] of this.subscribers) {
      if (org !== undefined && !visibleTo(scope, org)) continue
      frame ??= `data: ${JSON.stringify(event)}\n\n`
      if (!sendToSubscriber(res, frame)) this.subscribers.delete(res)
    }
  }

  closeAll(): void {
    for (const res of this.subscribers.keys()) if (!res.writableEnded) res.end()
    this.subscribers.clear()
  }
}
