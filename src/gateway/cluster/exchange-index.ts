import { exchangeSummarySchema, type ExchangeFilter, type ExchangeSummary } from '../../shared/api/traffic'
import { matchesFilter, visibleTo, type Scope } from '../capture/exchange-filter'
import type { RedisLink } from './redis-link'

/**
 * The cluster's list of ended exchanges, in Redis: one sorted set per organization (and one for
 * the exchanges without a valid key), each member an exchange's summary, scored by the time it
 * ended. Each instance adds its own exchanges as they end (capture on); any instance lists them.
 *
 * Bounded: a set keeps the newest INDEX_MAX_PER_ORG summaries and none older than INDEX_TTL_MS,
 * and the whole set expires INDEX_TTL_MS after its last addition. Only summaries are here — the
 * records (headers, bodies, frames) stay with the instance that captured them.
 */
export class ExchangeIndex {
  constructor(private readonly link: RedisLink) {}

  /** Adds one of this instance's ended exchanges; nobody need wait for it, and a failure is only a missing row. */
  async add(summary: ExchangeSummary): Promise<void> {
    if (!this.link.connected) return
    const key = indexKey(summary.org)
    const now = Date.now()
    await this.link.commands
      .pipeline()
      .zadd(key, scoreOf(summary), memberOf(summary))
      .zremrangebyscore(key, '-inf', now - INDEX_TTL_MS)
      .zremrangebyrank(key, 0, -(INDEX_MAX_PER_ORG + 1))
      .pexpire(key, INDEX_TTL_MS)
      .exec()
      .catch(() => undefined)
  }

  /**
   * One page of the scope's exchanges that `filter` matches, newest first, after `cursor` (a
   * previous page's). Throws when Redis does not answer: the caller lists locally instead.
   */
  async page(scope: Scope, filter: ExchangeFilter, limit: number, cursor: IndexPosition | undefined): Promise<IndexPage> {
    const sources = indexKeysOf(scope).map((key) => this.entries(key, cursor))
    const found: IndexEntry[] = []
    for await (const entry of newestFirst(sources)) {
      if (!visibleTo(scope, entry.summary.org) || !matchesFilter(entry.summary, filter)) continue
      found.push(entry)
      if (found.length > limit) break
    }
    const page = found.slice(0, limit)
    const last = page.at(-1)
    return { data: page.map((entry) => entry.summary), next: found.length > limit && last !== undefined ? last : undefined }
  }

  /** Forget the scope's exchanges (a clear). */
  async drop(scope: Scope): Promise<void> {
    await this.link.commands.del(...indexKeysOf(scope))
  }

  /** One set's entries from `from` on, newest first, read INDEX_CHUNK at a time. */
  private async *entries(key: string, from: IndexPosition | undefined): AsyncGenerator<IndexEntry> {
    const max = from === undefined ? '+inf' : String(from.score)
    for (let offset = 0; offset <= INDEX_MAX_PER_ORG; offset += INDEX_CHUNK) {
      const reply = await this.link.commands.zrevrangebyscore(key, max, '-inf', 'WITHSCORES', 'LIMIT', offset, INDEX_CHUNK)
      for (let i = 0; i + 1 < reply.length; i += 2) {
        const entry = parseEntry(reply[i]!, Number(reply[i + 1]))
        if (entry !== undefined && (from === undefined || isAfter(entry, from))) yield entry
      }
      if (reply.length < INDEX_CHUNK * 2) return
    }
  }
}

/** Where a page ended: the last row's score and ID (IDs order rows of the same score, as Redis orders their members). */
export interface IndexPosition {
  score: number
  id: string
}

export interface IndexEntry extends IndexPosition {
  summary: ExchangeSummary
}

export interface IndexPage {
  data: ExchangeSummary[]
  /** The position to continue after; undefined on the last page. */
  next: IndexPosition | undefined
}

/** At most this many summaries per organization: about 1 KB each, so about 1 MB per organization. */
export const INDEX_MAX_PER_ORG = 1_000
/** A day: older summaries are dropped, and an organization's set with no new exchange for that long expires. */
export const INDEX_TTL_MS = 24 * 60 * 60 * 1000
/** Rows read from Redis per command while a page is filled. */
const INDEX_CHUNK = 100

/** The sorted set of an organization's exchanges; `null` (no valid key) has its own. */
export const indexKey = (org: string | null) => (org === null ? 'mortar:traffic:index:none' : `mortar:traffic:index:org:${org}`)

function indexKeysOf(scope: Scope): string[] {
  return scope.unattributed ? [indexKey(scope.org), indexKey(null)] : [indexKey(scope.org)]
}

/** When it ended, in ms: the order of the local stores (which add an exchange as it ends). */
export function scoreOf(summary: ExchangeSummary): number {
  return Math.round(Date.parse(summary.started_at) + (summary.duration_ms ?? 0))
}

/** The ID first: members of one score are ordered by Redis byte by byte, so by ID. */
export function memberOf(summary: ExchangeSummary): string {
  return `${summary.id}\n${JSON.stringify(summary)}`
}

/** A member read back; undefined when it is not a summary (anyone with access to Redis may write there). */
export function parseEntry(member: string, score: number): IndexEntry | undefined {
  const newline = member.indexOf('\n')
  if (newline === -1 || !Number.isFinite(score)) return undefined
  let parsed: unknown
  try {
    parsed = JSON.parse(member.slice(newline + 1))
  } catch {
    return undefined
  }
  const summary = exchangeSummarySchema.safeParse(parsed)
  if (!summary.success || summary.data.id !== member.slice(0, newline)) return undefined
  return { score, id: summary.data.id, summary: summary.data }
}

/** Whether `entry` comes after `position` in newest-first order. */
export function isAfter(entry: IndexPosition, position: IndexPosition): boolean {
  return entry.score < position.score || (entry.score === position.score && entry.id < position.id)
}

/** Several newest-first sequences as one. */
export async function* newestFirst(sources: Array<AsyncIterator<IndexEntry>>): AsyncGenerator<IndexEntry> {
  const heads = await Promise.all(sources.map((source) => source.next()))
  for (;;) {
    let best: number | undefined
    for (const [i, head] of heads.entries()) {
      if (head.done === true) continue
      const current = best === undefined ? undefined : heads[best]
      if (current === undefined || current.done === true || isAfter(current.value, head.value)) best = i
    }
    if (best === undefined) return
    const head = heads[best]!
    if (head.done === true) return
    yield head.value
    heads[best] = await sources[best]!.next()
  }
}

/** A cluster cursor: `c<score>:<id>` (a local store's cursor is a bare number). */
export const INDEX_CURSOR = /^c(\d{1,15}):([A-Za-z0-9_-]{1,100})$/

export function formatIndexCursor(position: IndexPosition): string {
  return `c${position.score}:${position.id}`
}

export function parseIndexCursor(cursor: string): IndexPosition | undefined {
  const match = INDEX_CURSOR.exec(cursor)
  return match === null ? undefined : { score: Number(match[1]), id: match[2]! }
}
