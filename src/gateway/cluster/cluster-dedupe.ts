import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ERROR_CODES, type ErrorCode } from '../../shared/api/errors'
import { GatewayError } from '../errors'
import { idempotencyKeyConflict, type DedupeParticipation, type InFlightDedupe, type LeadGeneration } from '../pipeline/in-flight-dedupe'
import { parseRedisValue } from './redis-message'
import type { RedisLink } from './redis-link'

/**
 * In-flight dedupe across the cluster. The leader of an org's Idempotency-Key is elected in Redis
 * (`SET mortar:dedupe:<org>:<key> NX`, holding the fingerprint, the owning instance and the
 * leader's completion ID, with a TTL renewed while it runs). Identical requests on other instances
 * become followers: they wait for the leader's result, published on `mortar:dedupe-result` when its
 * generation ends, and answer with it (same completion ID, `X-Mortar-Dedupe: shared`); a different
 * request under a key in use is a 409 wherever it lands. On each instance, the local coalescing
 * (InFlightDedupe) still joins concurrent requests first, so one instance asks Redis once per group.
 *
 * The generation goes on while any participant waits, wherever it is: each follower instance keeps
 * a token in the sorted set `<entry>\0followers\0<leader id>` (scored by an expiry, renewed as
 * it watches), and removes it — saying so on `mortar:dedupe-left` — when its participants left.
 * When the leader's own participants have all left, it stops the generation only once that set
 * is empty (or Redis cannot say).
 *
 * Nothing outlives the generation: the leader publishes its result, then deletes the entry; a
 * result is kept in memory only for followers that saw the entry before it went (RECENT_RESULT_MS).
 * Without Redis, dedupe is per instance (docs/cluster.md).
 */
export class ClusterDedupe {
  private readonly waiting = new Map<string, (result: SharedResult) => void>()
  private readonly recent = new Map<string, { result: SharedResult; at: number }>()
  /** The generations this instance leads for the cluster, by entry key. */
  private readonly leading = new Map<string, Leadership>()

  constructor(
    private readonly link: RedisLink,
    private readonly instance: string,
    private readonly local: InFlightDedupe,
    private readonly timing: DedupeTiming = DEFAULT_DEDUPE_TIMING,
  ) {
    link.subscriber.on('message', (channel: string, message: string) => {
      if (channel === RESULT_CHANNEL) this.onResult(message)
      else if (channel === LEFT_CHANNEL) this.onLeft(message)
    })
    void link.subscriber.subscribe(RESULT_CHANNEL, LEFT_CHANNEL).catch(() => undefined)
  }

  get size(): number {
    return this.local.size
  }

  async join(org: string, key: string, fingerprint: string, id: string, lead: () => LeadGeneration): Promise<DedupeParticipation> {
    // A group already here (led here or following another instance): join it, as alone.
    if (this.local.has(org, key) || !this.link.connected) return this.joinHere(org, key, fingerprint, id, lead)
    const entryKey = dedupeKey(org, key)
    for (let attempt = 0; attempt < 3; attempt++) {
      const entry: DedupeEntry = { fingerprint, instance: this.instance, id }
      let claimed: string | null
      let current: string | null = null
      try {
        claimed = await this.link.commands.set(entryKey, JSON.stringify(entry), 'PX', this.timing.entryTtlMs, 'NX')
        if (claimed === null) current = await this.link.commands.get(entryKey)
      } catch {
        // Redis went away mid-election: decide here alone, as without a cluster.
        return this.local.join(org, key, fingerprint, id, lead)
      }
      // Another request of this instance may have formed the group while Redis answered.
      if (this.local.has(org, key)) return this.joinHere(org, key, fingerprint, id, lead)
      if (claimed !== null) return this.local.join(org, key, fingerprint, id, () => this.leadForCluster(entryKey, id, lead()))
      // The leader finished between the two commands: elect again.
      if (current === null) continue
      const leader = parseRedisValue(entrySchema, current)
      if (leader === undefined) continue
      if (leader.fingerprint !== fingerprint) throw idempotencyKeyConflict(key)
      // The group formed here follows another instance's leader: every participant here shares.
      const following = this.local.join(org, key, fingerprint, leader.id, () => this.follow(entryKey, leader.id))
      return { ...following, role: 'shared' }
    }
    return this.local.join(org, key, fingerprint, id, lead)
  }

  close(): void {
    for (const resolve of [...this.waiting.values()]) resolve({ ok: false, error: leaderGone() })
  }

  /** Join this instance's group (or form one alone): a participant arriving here again keeps a generation it leads here. */
  private joinHere(org: string, key: string, fingerprint: string, id: string, lead: () => LeadGeneration): DedupeParticipation {
    const joined = this.local.join(org, key, fingerprint, id, lead)
    const leadership = this.leading.get(dedupeKey(org, key))
    if (leadership !== undefined) leadership.abandoned = false
    return joined
  }

  /** The cluster's leader: runs the generation, keeps the entry alive, then tells the followers. */
  private leadForCluster(entryKey: string, id: string, started: LeadGeneration): LeadGeneration {
    const followers = followersKey(entryKey, id)
    let aborted = false
    const abort = () => {
      if (aborted) return
      aborted = true
      started.abort()
    }
    const leadership: Leadership = {
      id,
      abandoned: false,
      // Stops the generation once nobody waits here (abandoned) nor on another instance.
      check: () => {
        if (!leadership.abandoned) return
        if (!this.link.connected) return abort()
        this.link.commands
          .pipeline()
          .zremrangebyscore(followers, '-inf', Date.now())
          .zcard(followers)
          .exec()
          .then((results) => {
            const waiting = results?.[1]?.[1]
            if (leadership.abandoned && !(typeof waiting === 'number' && waiting > 0)) abort()
          })
          .catch(() => {
            if (leadership.abandoned) abort()
          })
      },
    }
    this.leading.set(entryKey, leadership)
    const renew = setInterval(() => {
      this.link.commands.pexpire(entryKey, this.timing.entryTtlMs).catch(() => undefined)
      // A follower instance that died leaves no word: its token expires, and this notices.
      leadership.check()
    }, this.timing.entryTtlMs / 3)
    renew.unref()
    const publish = (result: SharedResult) => {
      clearInterval(renew)
      if (this.leading.get(entryKey) === leadership) this.leading.delete(entryKey)
      const message: ResultMessage = { key: entryKey, id, result }
      // Published and deleted in one transaction: a follower that saw the entry always gets a
      // result, and a request sent after the result was heard finds the key free and leads anew.
      void this.link.commands
        .multi()
        .publish(RESULT_CHANNEL, JSON.stringify(message))
        .del(entryKey, followers)
        .exec()
        .catch(() => undefined)
    }
    started.reply.then(
      (reply) => publish(reply === undefined ? { ok: false, error: leaderGone() } : { ok: true, reply }),
      (error: unknown) => publish({ ok: false, error: errorOf(error) }),
    )
    return {
      ...started,
      abort: () => {
        leadership.abandoned = true
        leadership.check()
      },
    }
  }

  /** A follower's reply: the leader's, once it is published; an error if the leader vanishes first. */
  private follow(entryKey: string, leaderId: string): LeadGeneration {
    const waitKey = `${entryKey}\u0000${leaderId}`
    const followers = followersKey(entryKey, leaderId)
    // This instance's group, counted among the leader's participants while it waits.
    const token = randomUUID()
    const register = () => {
      const expiry = Date.now() + this.timing.watchMs * FOLLOWER_TTL_WATCHES
      this.link.commands
        .pipeline()
        .zadd(followers, expiry, token)
        .pexpire(followers, this.timing.entryTtlMs)
        .exec()
        .catch(() => undefined)
    }
    let settle: (result: SharedResult) => void = () => undefined
    const result = new Promise<SharedResult>((resolve) => (settle = resolve))
    let settled = false
    const done = (value: SharedResult) => {
      if (settled) return
      settled = true
      clearInterval(watch)
      this.waiting.delete(waitKey)
      settle(value)
      const left: LeftMessage = { key: entryKey, id: leaderId }
      void this.link.commands
        .zrem(followers, token)
        .then(() => this.link.commands.publish(LEFT_CHANNEL, JSON.stringify(left)))
        .catch(() => undefined)
    }
    const early = this.recent.get(waitKey)
    // Checks that the leader is still there: a crashed instance's entry expires, and then no result comes.
    const watch = setInterval(() => {
      if (!this.link.connected) return done({ ok: false, error: leaderGone() })
      register()
      this.link.commands
        .get(entryKey)
        .then((current) => {
          const leader = current === null ? undefined : parseRedisValue(entrySchema, current)
          if (leader?.id !== leaderId) setTimeout(() => done(this.recent.get(waitKey)?.result ?? { ok: false, error: leaderGone() }), 50)
        })
        .catch(() => undefined)
    }, this.timing.watchMs)
    watch.unref()
    register()
    this.waiting.set(waitKey, done)
    if (early !== undefined) done(early.result)
    return {
      reply: result.then((shared) => {
        if (shared.ok) return { body: shared.reply.body, upstream: shared.reply.upstream }
        throw new GatewayError(shared.error.code, shared.error.message, { param: shared.error.param })
      }),
      // The leader's generation is not this instance's to stop: a follower leaving only stops waiting.
      abort: () => done({ ok: false, error: leaderGone() }),
      release: () => undefined,
    }
  }

  /** A follower instance stopped waiting: the leader checks whether anyone still does. */
  private onLeft(message: string): void {
    const left = parseRedisValue(leftMessageSchema, message)
    if (left === undefined) return
    const leadership = this.leading.get(left.key)
    if (leadership?.id === left.id) leadership.check()
  }

  private onResult(message: string): void {
    const parsed = parseRedisValue(resultMessageSchema, message)
    if (parsed === undefined) return
    const { key, id, result } = parsed
    const waitKey = `${key}\u0000${id}`
    const now = Date.now()
    for (const [name, entry] of this.recent) if (now - entry.at > RECENT_RESULT_MS) this.recent.delete(name)
    this.recent.set(waitKey, { result, at: now })
    this.waiting.get(waitKey)?.(result)
  }
}

export interface DedupeTiming {
  /** How long a leader's entry outlives its last renewal: how long a crashed leader blocks its key. */
  entryTtlMs: number
  /** How often a follower checks that its leader is still there. */
  watchMs: number
}

export const DEFAULT_DEDUPE_TIMING: DedupeTiming = { entryTtlMs: 30_000, watchMs: 1_000 }
const RECENT_RESULT_MS = 5_000
/** A follower's token outlives its last renewal by this many watch periods: how long a crashed follower instance keeps the generation going. */
const FOLLOWER_TTL_WATCHES = 3
const RESULT_CHANNEL = 'mortar:dedupe-result'
const LEFT_CHANNEL = 'mortar:dedupe-left'

const dedupeKey = (org: string, key: string) => `mortar:dedupe:${org}:${key}`
/** No Idempotency-Key holds a NUL: this never names another key's entry. */
const followersKey = (entryKey: string, leaderId: string) => `${entryKey}\u0000followers\u0000${leaderId}`

interface Leadership {
  /** The leader's completion ID. */
  id: string
  /** Every participant on this instance left: the generation goes on only for followers elsewhere. */
  abandoned: boolean
  check(): void
}

const leftMessageSchema = z.object({ key: z.string(), id: z.string() })
type LeftMessage = z.output<typeof leftMessageSchema>

const entrySchema = z.object({ fingerprint: z.string(), instance: z.string(), id: z.string() })
type DedupeEntry = z.output<typeof entrySchema>

const errorCodeSchema = z.enum(Object.keys(ERROR_CODES) as [ErrorCode, ...ErrorCode[]])
const sharedErrorSchema = z.object({ code: errorCodeSchema, message: z.string(), param: z.string().nullable() })
const sharedResultSchema = z.union([
  z.object({ ok: z.literal(true), reply: z.object({ body: z.unknown(), upstream: z.string().optional() }) }),
  z.object({ ok: z.literal(false), error: sharedErrorSchema }),
])
type SharedResult = z.output<typeof sharedResultSchema>
const resultMessageSchema = z.object({ key: z.string(), id: z.string(), result: sharedResultSchema })
type ResultMessage = z.output<typeof resultMessageSchema>


function errorOf(error: unknown): z.output<typeof sharedErrorSchema> {
  if (error instanceof GatewayError) return { code: error.code, message: error.message, param: error.param }
  return { code: 'internal_error', message: 'The shared generation failed.', param: null }
}

function leaderGone(): z.output<typeof sharedErrorSchema> {
  return {
    code: 'upstream_unavailable',
    message: 'The gateway instance generating this shared request went away before it finished. Retry the request.',
    param: null,
  }
}
