import type { GenerationRegistry } from '../generation/generation-registry'
import type { ClusterHealth } from '../../shared/api/health'
import { GenerationDirectory, type DirectoryTiming } from './generation-directory'
import { RedisLink } from './redis-link'

/** What the gateway core asks of the cluster: nothing in it needs Redis to answer. */
export interface ClusterPeer {
  /** Stop a generation of `org`'s that runs on another instance; false as for an unknown ID. */
  stopElsewhere(id: string, org: string): Promise<boolean>
  status(): ClusterHealth
}

/**
 * This instance's membership of a cluster of gateways sharing one Redis (docs/cluster.md). Opened
 * before the gateway, joined once the instance has its name (its port may be picked at listen).
 */
export class Cluster implements ClusterPeer {
  private instance = ''
  private directory: GenerationDirectory | undefined

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

  join(instance: string, generations: GenerationRegistry, timing?: DirectoryTiming): void {
    this.instance = instance
    this.directory = new GenerationDirectory(this.link, instance, generations, timing)
  }

  stopElsewhere(id: string, org: string): Promise<boolean> {
    return this.directory?.stopElsewhere(id, org) ?? Promise.resolve(false)
  }

  status(): ClusterHealth {
    const { state, since } = this.link.status()
    return { instance: this.instance, redis: state, redis_since: since }
  }

  close(): void {
    this.directory?.close()
    this.link.close()
  }
}
