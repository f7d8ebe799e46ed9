import type { GenerationRegistry } from '../generation/generation-registry'
import type { ClusterHealth } from '../../shared/api/health'
import { telemetryEventSchema, type TelemetryEvent } from '../../shared/api/telemetry'
import { trafficEventSchema, type TrafficEvent } from '../../shared/api/traffic'
import type { TrafficCapture } from '../capture/traffic-capture'
import { ExchangeIndex } from './exchange-index'
import { ExchangeLookup } from './exchange-lookup'
import { sharedExchanges } from './shared-exchanges'
import type { TelemetryBus } from '../telemetry/telemetry-bus'
import type { DedupeCoordinator, InFlightDedupe } from '../pipeline/in-flight-dedupe'
import { ClusterDedupe } from './cluster-dedupe'
import { ClusterEventRelay } from './cluster-event-relay'
import { GenerationDirectory, type DirectoryTiming } from './generation-directory'
import { RedisLink } from './redis-link'
import { DEFAULT_REDIS_KEY_TIMING, RedisKeyRecords } from './redis-key-records'

/** What the gateway core asks of the cluster: nothing in it needs Redis to answer. */
export interface ClusterPeer {
  /** Stop a generation of `org`'s that runs on another instance; false as for an unknown ID. */
  stopElsewhere(id: string, org: string): Promise<boolean>
  status(): ClusterHealth
  /** Dedupe across the cluster, with `local` deciding alone until the instance has joined (and while Redis is away). */
  dedupe(local: InFlightDedupe): DedupeCoordinator
}

/**
 * This instance's membership of a cluster of gateways sharing one Redis (docs/cluster.md). Opened
 * before the gateway, joined once the instance has its name (its port may be picked at listen).
 */
export class Cluster implements ClusterPeer {
  private instance = ''
  private directory: GenerationDirectory | undefined
  private clusterDedupe: ClusterDedupe | undefined
  private readonly closers: Array<() => void> = []

  private constructor(
    readonly link: RedisLink,
    readonly redisUrl: string,
  ) {}

  /** Connect to Redis; an unreachable Redis is no error here: the instance starts alone and keeps trying. */
  static async open(redisUrl: string, log: (line: string) => void): Promise<Cluster> {
    const link = new RedisLink(redisUrl, log)
    await link.connect()
    if (!link.connected) log('Redis: not reachable at start-up; serving alone and retrying every second.')
    return new Cluster(link, redisUrl)
  }

  /** Share this instance's state with the cluster's: its generations (for stops), its dedupe, its telemetry and traffic. */
  join(
    instance: string,
    parts: { generations: GenerationRegistry; telemetry: TelemetryBus; dedupe: InFlightDedupe; capture: TrafficCapture },
    timing?: DirectoryTiming,
  ): void {
    this.instance = instance
    this.directory = new GenerationDirectory(this.link, instance, parts.generations, timing)
    const clusterDedupe = new ClusterDedupe(this.link, instance, parts.dedupe)
    this.clusterDedupe = clusterDedupe
    this.closers.push(() => clusterDedupe.close())
    const { telemetry } = parts
    const telemetryRelay = new ClusterEventRelay<TelemetryEvent>(this.link, instance, 'mortar:telemetry', telemetryEventSchema, (event) =>
      telemetry.deliver(event),
    )
    telemetry.joinCluster(instance, telemetryRelay)
    this.closers.push(() => telemetryRelay.close())
    const { capture } = parts
    const trafficRelay = new ClusterEventRelay<TrafficEvent>(this.link, instance, 'mortar:traffic', trafficEventSchema, (event, org) =>
      capture.live.deliver(event, org),
    )
    const lookup = new ExchangeLookup(this.link, instance, capture)
    capture.joinCluster(instance, trafficRelay, sharedExchanges(this.link, new ExchangeIndex(this.link), lookup))
    this.closers.push(() => trafficRelay.close(), () => lookup.close())
  }

  /** The cluster's API keys, read from Redis once (or found unreachable) before this resolves. */
  async keyRecords(cacheSeconds: number): Promise<RedisKeyRecords> {
    const records = new RedisKeyRecords(this.link, { ...DEFAULT_REDIS_KEY_TIMING, staleAfterMs: cacheSeconds * 1_000 })
    this.closers.push(() => records.close())
    await records.load()
    return records
  }

  stopElsewhere(id: string, org: string): Promise<boolean> {
    return this.directory?.stopElsewhere(id, org) ?? Promise.resolve(false)
  }

  dedupe(local: InFlightDedupe): DedupeCoordinator {
    return { join: (...args) => (this.clusterDedupe ?? local).join(...args) }
  }

  status(): ClusterHealth {
    const { state, since } = this.link.status()
    return { instance: this.instance, redis: state, redis_since: since }
  }

  close(): void {
    for (const close of this.closers.splice(0)) close()
    this.directory?.close()
    this.link.close()
  }
}
