import { randomUUID } from 'node:crypto'
import { keyRecordSchema, type KeyRecord } from '../auth/key-records'
import { indexKeys, type KeyChange, type KeyIndex, type KeyRecordsSource } from '../auth/key-records-source'
import { KeyStoreError, KeysUnavailableError } from '../auth/key-store-errors'
import { DEFAULT_KEY_CACHE_SECONDS } from './cluster-options'
import { parseRedisValue } from './redis-message'
import type { RedisLink } from './redis-link'

export interface RedisKeyTiming {
  /** How often the copy is checked against Redis's version: the bound on missing a change notice. */
  pollMs: number
  /**
   * How long the last copy is used to accept keys after Redis was last heard from. Past it, stored
   * keys are refused with 503 `keys_unavailable` until Redis answers again.
   */
  staleAfterMs: number
}

export const DEFAULT_REDIS_KEY_TIMING: RedisKeyTiming = { pollMs: 500, staleAfterMs: DEFAULT_KEY_CACHE_SECONDS * 1_000 }

/**
 * A cluster's API keys, in Redis: the hash `mortar:keys` (key ID → its record as JSON, the same
 * record keys.json holds — hashes and hints, never a key) and `mortar:keys:version`, a new random
 * token at every change (never a counter: a Redis that lost its data and was written again must
 * not repeat a version an instance still holds).
 *
 * Each instance holds a copy of all records, so a request is checked in memory and never waits on
 * Redis. The copy follows Redis: a change is announced on `mortar:keys:changed` and every instance
 * re-reads at once; the version is also polled every `pollMs`, in case a notice is lost (a
 * subscriber reconnecting). So a revocation made anywhere is refused everywhere within a second.
 *
 * A change reads the records and their version in one transaction, applies the change, and writes
 * the records that differ with a script that first checks the version is unchanged (else it is
 * retried on the new records): two changes at once, from any instances or CLIs, never undo each
 * other. With Redis unreachable no change is made (KeysUnavailableError).
 */
export class RedisKeyRecords implements KeyRecordsSource {
  readonly description = 'Redis'
  private index: KeyIndex = indexKeys([])
  /** Undefined until the first successful read. */
  private version: string | undefined
  /** When Redis last confirmed the copy (performance.now()). */
  private confirmedAt = Number.NEGATIVE_INFINITY
  private changes: Promise<unknown> = Promise.resolve()
  private syncing: Promise<void> | undefined
  private syncAgain = false
  private readonly listeners = new Set<() => void>()
  private readonly timer: NodeJS.Timeout
  private readonly stopFollowing: () => void
  private readonly onMessage = (channel: string) => {
    if (channel === CHANGED_CHANNEL) void this.sync()
  }

  constructor(
    private readonly link: RedisLink,
    private readonly timing: RedisKeyTiming = DEFAULT_REDIS_KEY_TIMING,
  ) {
    link.subscriber.on('message', this.onMessage)
    void link.subscriber.subscribe(CHANGED_CHANNEL).catch(() => undefined)
    this.stopFollowing = link.onStateChange(({ state }) => {
      if (state === 'connected') void this.sync()
    })
    this.timer = setInterval(() => void this.sync(), timing.pollMs)
    this.timer.unref()
  }

  /** Read the records once; resolves whether or not Redis answered (unanswered, keys stay unavailable). */
  load(): Promise<void> {
    return this.sync()
  }

  read(): KeyIndex {
    if (this.version !== undefined && performance.now() - this.confirmedAt <= this.timing.staleAfterMs) return this.index
    throw new KeysUnavailableError(
      this.version === undefined
        ? 'The API keys live in Redis, which this gateway has not reached yet; try again once it is reachable.'
        : `The API keys live in Redis, unreachable for over ${Math.round(this.timing.staleAfterMs / 1000)} s; try again once it is reachable.`,
    )
  }

  /** One change at a time from this process: its own changes never race each other for the version. */
  apply<T>(change: KeyChange<T>, now: Date): Promise<T> {
    const applied = this.changes.then(() => this.applyNow(change, now))
    this.changes = applied.catch(() => undefined)
    return applied
  }

  private async applyNow<T>(change: KeyChange<T>, now: Date): Promise<T> {
    for (let attempt = 0; attempt < MAX_CHANGE_ATTEMPTS; attempt++) {
      // Another process's change came between the read and the write: a short, random pause first.
      if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt))
      const stored = await this.fetch().catch(unavailable)
      const { records, result } = change(stored.records, now)
      if (records === stored.records) return result
      const written = await this.write(stored, records).catch(unavailable)
      if (written === undefined) continue
      this.adopt(ordered([...records]), written)
      return result
    }
    throw new KeyStoreError('The keys in Redis kept changing while this change was being made; try again.')
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close(): void {
    clearInterval(this.timer)
    this.stopFollowing()
    this.link.subscriber.off('message', this.onMessage)
  }

  /** One sync at a time; a request for one while it runs makes it run once more (a notice must not be lost). */
  private sync(): Promise<void> {
    if (this.syncing !== undefined) {
      this.syncAgain = true
      return this.syncing
    }
    this.syncing = this.syncOnce().finally(() => {
      this.syncing = undefined
      if (this.syncAgain) {
        this.syncAgain = false
        void this.sync()
      }
    })
    return this.syncing
  }

  private async syncOnce(): Promise<void> {
    if (!this.link.connected) return
    try {
      const version = (await this.link.commands.get(VERSION_KEY)) ?? '0'
      if (version === this.version) {
        this.confirmedAt = performance.now()
        return
      }
      const stored = await this.fetch()
      this.adopt(stored.records, stored.version)
    } catch {
      // Unanswered: the copy ages towards its bound, and the next poll tries again.
    }
  }

  /** The records and their version, read together. */
  private async fetch(): Promise<{ records: KeyRecord[]; version: string; json: Map<string, string> }> {
    if (!this.link.connected) throw new Error('Redis is not connected')
    const replies = await this.link.commands.multi().get(VERSION_KEY).hgetall(RECORDS_KEY).exec()
    const [versionReply, recordsReply] = replies ?? []
    if (versionReply?.[0] || recordsReply?.[0]) throw versionReply?.[0] ?? recordsReply?.[0]
    const version = typeof versionReply?.[1] === 'string' ? versionReply[1] : '0'
    const fields = (recordsReply?.[1] ?? {}) as Record<string, string>
    const json = new Map(Object.entries(fields))
    const records: KeyRecord[] = []
    // A record that does not parse (another program wrote it) is no key: it can authorize nothing.
    for (const [id, text] of json) {
      const record = parseRedisValue(keyRecordSchema, text)
      if (record !== undefined && record.id === id) records.push(record)
    }
    return { records: ordered(records), version, json }
  }

  /** The new version, or undefined when the records changed since `stored` was read. */
  private async write(stored: { version: string; json: Map<string, string> }, records: readonly KeyRecord[]): Promise<string | undefined> {
    const kept = new Set(records.map((record) => record.id))
    const removed = [...stored.json.keys()].filter((id) => !kept.has(id))
    const changed: string[] = []
    for (const record of records) {
      const text = JSON.stringify(record)
      if (stored.json.get(record.id) !== text) changed.push(record.id, text)
    }
    const version = randomUUID()
    const reply = await this.link.commands.eval(WRITE_IF_UNCHANGED, 3, VERSION_KEY, RECORDS_KEY, CHANGED_CHANNEL, stored.version, version, String(removed.length), ...removed, ...changed)
    return reply === 1 ? version : undefined
  }

  private adopt(records: KeyRecord[], version: string): void {
    const changed = version !== this.version
    this.index = indexKeys(records)
    this.version = version
    this.confirmedAt = performance.now()
    if (changed) for (const listener of this.listeners) listener()
  }
}

function ordered(records: KeyRecord[]): KeyRecord[] {
  return records.sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
}

function unavailable(): never {
  throw new KeysUnavailableError('The API keys live in Redis, which is unreachable: keys cannot be created, revoked or rotated until it is back.')
}

const RECORDS_KEY = 'mortar:keys'
const VERSION_KEY = 'mortar:keys:version'
const CHANGED_CHANNEL = 'mortar:keys:changed'
const MAX_CHANGE_ATTEMPTS = 10

/**
 * KEYS: version, records, channel. ARGV: the version the change was made against, the new version,
 * the number of IDs to remove, those IDs, then ID/record pairs to write. Nothing is written when
 * the version moved on (0); otherwise the records and the new version are written and the change
 * announced (1). A script runs atomically: no other command comes between its check and its writes.
 */
const WRITE_IF_UNCHANGED = `
if (redis.call('GET', KEYS[1]) or '0') ~= ARGV[1] then return 0 end
local removed = tonumber(ARGV[3])
for i = 4, 3 + removed do redis.call('HDEL', KEYS[2], ARGV[i]) end
for i = 4 + removed, #ARGV, 2 do redis.call('HSET', KEYS[2], ARGV[i], ARGV[i + 1]) end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('PUBLISH', KEYS[3], ARGV[2])
return 1
`
