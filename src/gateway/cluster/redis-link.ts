import type { ClusterHealth } from '../../shared/api/health'
import { Redis } from 'ioredis'

/** `connected`: commands reach Redis; `unavailable`: they don't, and each instance serves alone. */
export type RedisState = ClusterHealth['redis']

export interface RedisLinkStatus {
  state: RedisState
  /** When the state last changed (ISO 8601). */
  since: string
}

/**
 * The instance's two connections to Redis: one for commands, one for subscriptions (a subscribed
 * connection can run no other command). Commands never wait for Redis: with no connection they fail
 * at once (no offline queue) and a slow Redis fails them after COMMAND_TIMEOUT_MS, so a request is
 * never held up by it. Both reconnect on their own, at most a second apart, for as long as it takes.
 */
export class RedisLink {
  readonly commands: Redis
  readonly subscriber: Redis
  private current: RedisLinkStatus
  private wasConnected = false
  private readonly stateListeners = new Set<(status: RedisLinkStatus) => void>()

  constructor(url: string, private readonly log: (line: string) => void) {
    const common = {
      lazyConnect: true,
      connectTimeout: CONNECT_TIMEOUT_MS,
      // Reconnect forever, quickly: Redis coming back should be noticed within a second.
      retryStrategy: (attempt: number) => Math.min(100 * attempt, 1_000),
      maxRetriesPerRequest: 0,
    }
    this.commands = new Redis(url, { ...common, enableOfflineQueue: false, commandTimeout: COMMAND_TIMEOUT_MS })
    // Subscriptions may queue: they are sent when the connection is (again) ready and block nothing.
    this.subscriber = new Redis(url, { ...common, enableOfflineQueue: true, autoResubscribe: true })
    this.current = { state: 'unavailable', since: new Date().toISOString() }
    for (const client of [this.commands, this.subscriber]) {
      // Errors are reported through the state; without a listener ioredis would print each retry.
      client.on('error', () => undefined)
      client.on('ready', () => this.update())
      client.on('close', () => this.update())
      client.on('end', () => this.update())
    }
  }

  status(): RedisLinkStatus {
    return this.current
  }

  get connected(): boolean {
    return this.current.state === 'connected'
  }

  /** Start connecting; resolves when connected or after the first attempt failed (the instance then starts degraded). */
  async connect(): Promise<void> {
    await Promise.all([this.commands.connect(), this.subscriber.connect()].map((attempt) => attempt.catch(() => undefined)))
    this.update()
  }

  onStateChange(listener: (status: RedisLinkStatus) => void): () => void {
    this.stateListeners.add(listener)
    return () => this.stateListeners.delete(listener)
  }

  close(): void {
    this.commands.disconnect()
    this.subscriber.disconnect()
  }

  private update(): void {
    const state: RedisState = this.commands.status === 'ready' && this.subscriber.status === 'ready' ? 'connected' : 'unavailable'
    if (state === this.current.state) return
    this.current = { state, since: new Date().toISOString() }
    if (state === 'connected') this.log(this.wasConnected ? 'Redis: connected again; this instance is part of the cluster again.' : 'Redis: connected.')
    else this.log('Redis: unreachable; this instance serves alone (its own generations, stops and dedupe) until it is back.')
    this.wasConnected ||= state === 'connected'
    for (const listener of this.stateListeners) listener(this.current)
  }
}

const CONNECT_TIMEOUT_MS = 2_000
/** A command that takes longer than this counts as failed: Redis answers in well under a millisecond when healthy. */
export const COMMAND_TIMEOUT_MS = 500
