import { z } from 'zod'
import { parseRedisValue } from './redis-message'
import type { RedisLink } from './redis-link'

/**
 * What a local event bus (telemetry, traffic) asks of the cluster: forward its events to the other
 * instances, and say whether anyone there listens — events are only built when someone does.
 */
export interface ClusterFanout<Event> {
  /** Whether another instance has subscribers of this kind right now. */
  readonly wantedElsewhere: boolean
  forward(event: Event, org: string | null | undefined): void
  /** This instance's own subscriber count changed. */
  localSubscribers(count: number): void
}

/**
 * One kind of event shared by every instance over one pub/sub channel. Each message names the
 * instance it came from (an instance hears its own publishes and skips them) and the org it
 * belongs to, so each instance's bus applies the same org scoping as to its own events.
 *
 * Who listens: an instance with local subscribers keeps its name in the sorted set
 * `<channel>:wanted`, scored by an expiry WANTED_TTL_MS ahead and renewed every POLL_MS, and says
 * so at once on `<channel>:wanted` when its first subscriber arrives; every instance reads the set
 * every POLL_MS. So an instance publishes only while someone elsewhere listens, starts within a
 * message's time of a first subscriber, and stops within WANTED_TTL_MS of the last one leaving (or
 * of its instance dying).
 */
export class ClusterEventRelay<Event> implements ClusterFanout<Event> {
  private listenedElsewhere = false
  private localCount = 0
  private readonly timer: NodeJS.Timeout
  /** Both the sorted set of listening instances and the channel announcing a first subscriber. */
  private readonly wantedKey: string

  constructor(
    private readonly link: RedisLink,
    private readonly instance: string,
    private readonly channel: string,
    private readonly eventSchema: z.ZodType<Event>,
    private readonly deliver: (event: Event, org: string | null | undefined) => void,
  ) {
    this.wantedKey = `${channel}:wanted`
    link.subscriber.on('message', (from: string, message: string) => this.onMessage(from, message))
    void link.subscriber.subscribe(channel, this.wantedKey).catch(() => undefined)
    this.timer = setInterval(() => this.poll(), POLL_MS)
    this.timer.unref()
  }

  get wantedElsewhere(): boolean {
    return this.listenedElsewhere && this.link.connected
  }

  forward(event: Event, org: string | null | undefined): void {
    if (!this.wantedElsewhere) return
    const message: RelayedMessage = { from: this.instance, org: org ?? null, scoped: org !== undefined, event }
    this.link.commands.publish(this.channel, JSON.stringify(message)).catch(() => undefined)
  }

  localSubscribers(count: number): void {
    const first = this.localCount === 0 && count > 0
    this.localCount = count
    if (first && this.link.connected) {
      const commands = this.link.commands
      commands
        .zadd(this.wantedKey, Date.now() + WANTED_TTL_MS, this.instance)
        .then(() => commands.publish(this.wantedKey, this.instance))
        .catch(() => undefined)
    }
  }

  close(): void {
    clearInterval(this.timer)
  }

  private poll(): void {
    if (!this.link.connected) return
    const now = Date.now()
    const pipeline = this.link.commands.pipeline()
    if (this.localCount > 0) pipeline.zadd(this.wantedKey, now + WANTED_TTL_MS, this.instance)
    pipeline.zremrangebyscore(this.wantedKey, '-inf', now)
    pipeline.zrangebyscore(this.wantedKey, now, '+inf')
    pipeline
      .exec()
      .then((results) => {
        const listeners = results?.at(-1)?.[1]
        if (Array.isArray(listeners)) this.listenedElsewhere = listeners.some((name) => name !== this.instance)
      })
      .catch(() => undefined)
  }

  private onMessage(channel: string, message: string): void {
    if (channel === this.wantedKey) {
      if (message !== this.instance) this.listenedElsewhere = true
      return
    }
    if (channel !== this.channel) return
    const relayed = parseRedisValue(relayedSchema, message)
    if (relayed === undefined || relayed.from === this.instance) return
    const event = this.eventSchema.safeParse(relayed.event)
    if (!event.success) return
    this.deliver(event.data, relayed.scoped ? relayed.org : undefined)
  }
}

const relayedSchema = z.object({ from: z.string(), org: z.string().nullable(), scoped: z.boolean(), event: z.unknown() })
type RelayedMessage = z.output<typeof relayedSchema>

const POLL_MS = 1_000
const WANTED_TTL_MS = 3_000
