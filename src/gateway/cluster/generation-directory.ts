import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import type { GenerationRegistry } from '../generation/generation-registry'
import { parseRedisValue } from './redis-message'
import type { RedisLink } from './redis-link'

/**
 * Which instance runs which generation, in Redis, so that a stop may land on any instance.
 *
 * Each live generation has a key `mortar:gen:<id>` naming its org and owning instance, written with
 * a TTL and re-written every REFRESH_MS while it runs: a crashed instance's entries expire within
 * ENTRY_TTL_MS, and an entry lost while Redis was away is written again once it is back. A stop for
 * an ID this instance doesn't run is relayed to the owner over pub/sub and answered once the owner
 * says whether it stopped it — or, when no answer comes within RELAY_WAIT_MS (owner gone, Redis
 * away), as not stopped: the same 404 as an unknown ID, so nothing tells live IDs apart.
 */
export class GenerationDirectory {
  /** The generations this instance runs and has announced: id → org. */
  private readonly owned = new Map<string, string>()
  private readonly waiting = new Map<string, (stopped: boolean) => void>()
  private readonly refreshTimer: NodeJS.Timeout
  private readonly unsubscribe: Array<() => void> = []

  constructor(
    private readonly link: RedisLink,
    private readonly instance: string,
    private readonly generations: GenerationRegistry,
    private readonly timing: DirectoryTiming = DEFAULT_DIRECTORY_TIMING,
  ) {
    this.unsubscribe.push(
      generations.onRegister((id, org) => {
        this.owned.set(id, org)
        this.announce([[id, org]])
      }),
      generations.onRelease((id) => {
        if (!this.owned.delete(id)) return
        if (link.connected) link.commands.del(entryKey(id)).catch(() => undefined)
      }),
      link.onStateChange(({ state }) => {
        if (state === 'connected') this.announce([...this.owned])
      }),
    )
    this.refreshTimer = setInterval(() => this.announce([...this.owned]), timing.refreshMs)
    this.refreshTimer.unref()
    link.subscriber.on('message', (channel: string, message: string) => this.onMessage(channel, message))
    void link.subscriber.subscribe(stopChannel(instance), answerChannel(instance)).catch(() => undefined)
  }

  /**
   * Stop a generation that runs on another instance. False — as for an unknown ID — when none of
   * `org`'s with this ID runs anywhere, or its owner did not confirm in time.
   */
  async stopElsewhere(id: string, org: string): Promise<boolean> {
    if (!this.link.connected) return false
    let entry: string | null
    try {
      entry = await this.link.commands.get(entryKey(id))
    } catch {
      return false
    }
    const owner = entry === null ? undefined : parseRedisValue(entrySchema, entry)
    if (owner === undefined) return false
    // Another org's generation is answered like an unknown one, without asking its owner.
    if (owner.org !== org || owner.instance === this.instance) return false
    const ask = randomUUID()
    const answered = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(ask)
        resolve(false)
      }, this.timing.relayWaitMs)
      this.waiting.set(ask, (stopped) => {
        clearTimeout(timer)
        this.waiting.delete(ask)
        resolve(stopped)
      })
    })
    const request: StopRequest = { ask, id, org, from: this.instance }
    try {
      const receivers = await this.link.commands.publish(stopChannel(owner.instance), JSON.stringify(request))
      // Nobody listens on the owner's channel: it is gone (its entry has yet to expire).
      if (receivers === 0) this.waiting.get(ask)?.(false)
    } catch {
      this.waiting.get(ask)?.(false)
    }
    return answered
  }

  close(): void {
    clearInterval(this.refreshTimer)
    for (const stop of this.unsubscribe) stop()
    for (const resolve of [...this.waiting.values()]) resolve(false)
  }

  private announce(entries: ReadonlyArray<readonly [string, string]>): void {
    if (entries.length === 0 || !this.link.connected) return
    const pipeline = this.link.commands.pipeline()
    for (const [id, org] of entries) {
      pipeline.set(entryKey(id), JSON.stringify({ instance: this.instance, org }), 'PX', this.timing.entryTtlMs)
    }
    pipeline.exec().catch(() => undefined)
  }

  /** Every message of the shared subscriber connection comes here: only this directory's two channels are read. */
  private onMessage(channel: string, message: string): void {
    if (channel === stopChannel(this.instance)) {
      const request = parseRedisValue(stopRequestSchema, message)
      if (request === undefined) return
      const { ask, id, org, from } = request
      // The registry checks the org again: the owner trusts no one's claim about it.
      const stopped = this.generations.stop(id, org, 'stopped')
      const answer: StopAnswer = { ask, stopped }
      this.link.commands.publish(answerChannel(from), JSON.stringify(answer)).catch(() => undefined)
    } else if (channel === answerChannel(this.instance)) {
      const answer = parseRedisValue(stopAnswerSchema, message)
      if (answer !== undefined) this.waiting.get(answer.ask)?.(answer.stopped)
    }
  }
}

export interface DirectoryTiming {
  /** How long an entry outlives its last refresh: how long a crashed instance's IDs stay "live". */
  entryTtlMs: number
  refreshMs: number
  /** How long a relayed stop waits for the owner's answer. */
  relayWaitMs: number
}

export const DEFAULT_DIRECTORY_TIMING: DirectoryTiming = { entryTtlMs: 15_000, refreshMs: 5_000, relayWaitMs: 2_000 }

const entrySchema = z.object({ instance: z.string(), org: z.string() })
const stopRequestSchema = z.object({ ask: z.string(), id: z.string(), org: z.string(), from: z.string() })
const stopAnswerSchema = z.object({ ask: z.string(), stopped: z.boolean() })
type StopRequest = z.output<typeof stopRequestSchema>
type StopAnswer = z.output<typeof stopAnswerSchema>

const entryKey = (id: string) => `mortar:gen:${id}`
const stopChannel = (instance: string) => `mortar:stop:${instance}`
const answerChannel = (instance: string) => `mortar:stop-answer:${instance}`
