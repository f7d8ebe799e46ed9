import { chmodSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { z } from 'zod'
import {
  exchangeSchema,
  exchangeSummarySchema,
  type CaptureLimits,
  type Exchange,
  type ExchangeFilter,
  type ExchangeList,
  type ExchangeListQuery,
  type ExchangeSummary,
} from '../../shared/api/traffic'
import { matchesFilter, matchesText, searchPattern, summaryOf, type Scope } from './exchange-filter'
import type { ExchangeStore, StoreStats } from './exchange-store'
import type { SqliteDatabase, SqliteDriver } from './sqlite-driver'

/** Bumped when the table layout changes; a database from a newer Mortar is refused, not rewritten. */
export const SCHEMA_VERSION = 1
export const DATABASE_FILE = 'traffic.sqlite'
/** Exchanges ended within this long are written together, in one transaction. */
const BATCH_MS = 50
const DAY_MS = 86_400_000

/**
 * The rows the statements read, parsed rather than trusted: the database is a file that another
 * Mortar version, or a crash, may have left different from what this one writes.
 */
const listRowSchema = z.object({ seq: z.number(), summary: z.string(), body: z.string().optional() })
const bodyRowSchema = z.object({ org: z.string().nullable(), body: z.string() })
const totalsRowSchema = z.object({ count: z.number(), bytes: z.number() })
const sizeRowSchema = z.object({ seq: z.number(), size_bytes: z.number() })
const versionRowSchema = z.object({ version: z.number() })

const exchangeOf = (text: string): Exchange => exchangeSchema.parse(JSON.parse(text))
const summaryOfRow = (text: string): ExchangeSummary => exchangeSummarySchema.parse(JSON.parse(text))

/**
 * Ended exchanges in SQLite (`<home>/traffic.sqlite`, WAL), kept across restarts within a
 * retention by age and by size (and a count). Nothing touches the disk on the request path: an
 * ended exchange waits in memory and is written with the others of the same ~50 ms, in one
 * transaction; a read writes what is waiting first, so the API always sees every ended exchange.
 */
export class DiskStore implements ExchangeStore {
  /** Rows are written later, in batches: each record is given whole. */
  readonly keepsBytesAtHand = false
  private pending: Exchange[] = []
  private timer: NodeJS.Timeout | undefined
  private evicted = 0
  private closed = false
  private readonly statements

  constructor(
    private readonly db: SqliteDatabase,
    private readonly limits: CaptureLimits,
    private readonly now: () => number = Date.now,
  ) {
    db.pragma('journal_mode = WAL')
    // WAL with NORMAL loses at most the last transactions on a power cut, never the database.
    db.pragma('synchronous = NORMAL')
    migrate(db)
    this.statements = {
      insert: db.prepare('INSERT OR REPLACE INTO exchanges (id, started_ms, org, size_bytes, summary, body) VALUES (?, ?, ?, ?, ?, ?)'),
      get: db.prepare('SELECT org, body FROM exchanges WHERE id = ?'),
      totals: db.prepare('SELECT count(*) AS count, total(size_bytes) AS bytes FROM exchanges'),
      expire: db.prepare('DELETE FROM exchanges WHERE started_ms < ?'),
      oldest: db.prepare('SELECT seq, size_bytes FROM exchanges ORDER BY seq'),
      deleteUpTo: db.prepare('DELETE FROM exchanges WHERE seq <= ?'),
    }
    this.enforceLimits()
  }

  /** Open (or create) the database in `home` with the driver, which is loaded only for disk capture. */
  static open(driver: SqliteDriver, home: string, limits: CaptureLimits, now?: () => number): DiskStore {
    // The home may not exist yet (its first run); it holds keys too, so it is the owner's only.
    mkdirSync(home, { recursive: true, mode: 0o700 })
    const file = join(home, DATABASE_FILE)
    const db = new driver(file)
    // Prompts and replies: readable by the owner only. SQLite gives its -wal and -shm files the
    // database's mode, so they follow.
    chmodSync(file, 0o600)
    try {
      return new DiskStore(db, limits, now)
    } catch (error) {
      db.close()
      throw error
    }
  }

  add(exchange: Exchange): void {
    if (this.closed) return
    this.pending.push(exchange)
    this.timer ??= setTimeout(() => this.flush(), BATCH_MS)
  }

  list(scope: Scope, query: ExchangeListQuery): ExchangeList {
    const rows = this.matching(scope, query, query.cursor === undefined ? undefined : Number(query.cursor), query.limit + 1)
    const page = rows.slice(0, query.limit)
    return {
      object: 'list',
      data: page.map((row) => row.summary),
      next_cursor: rows.length > query.limit ? String(page.at(-1)?.seq) : null,
    }
  }

  get(scope: Scope, id: string): Exchange | undefined {
    this.flush()
    const found = this.statements.get.get(id)
    if (found === undefined) return undefined
    const row = bodyRowSchema.parse(found)
    if (!(row.org === null ? scope.unattributed : row.org === scope.org)) return undefined
    return exchangeOf(row.body)
  }

  select(scope: Scope, filter: ExchangeFilter, ids: readonly string[] | undefined): Exchange[] {
    if (ids !== undefined) return ids.map((id) => this.get(scope, id)).filter((exchange) => exchange !== undefined)
    return this.matching(scope, filter, undefined, Infinity, true).flatMap((row) => (row.exchange !== undefined ? [row.exchange] : []))
  }

  clear(scope: Scope): number {
    this.flush()
    const result = this.db.prepare('DELETE FROM exchanges WHERE org = ? OR (org IS NULL AND ?)').run(scope.org, scope.unattributed ? 1 : 0)
    return result.changes
  }

  stats(): StoreStats {
    this.flush()
    const { count, bytes } = totalsRowSchema.parse(this.statements.totals.get())
    return { exchanges: count, bytes, evicted: this.evicted }
  }

  close(): void {
    if (this.closed) return
    this.flush()
    this.closed = true
    this.db.close()
  }

  /** Write what is waiting, in one transaction, then hold the limits. */
  flush(): void {
    clearTimeout(this.timer)
    this.timer = undefined
    if (this.pending.length === 0 || this.closed) return
    const batch = this.pending
    this.pending = []
    const { insert } = this.statements
    this.db.transaction(() => {
      for (const exchange of batch) {
        insert.run(exchange.id, Date.parse(exchange.started_at), exchange.org, exchange.size_bytes, JSON.stringify(summaryOf(exchange)), JSON.stringify(exchange))
      }
    })()
    this.enforceLimits()
  }

  /** Retention: older than the days, then the oldest until within the count and the byte budget. */
  private enforceLimits(): void {
    const { retention_days: days, max_bytes: maxBytes, max_exchanges: maxExchanges } = this.limits
    if (days !== null) this.evicted += this.statements.expire.run(this.now() - days * DAY_MS).changes
    let { count, bytes } = totalsRowSchema.parse(this.statements.totals.get())
    if (count <= maxExchanges && bytes <= maxBytes) return
    let upTo: number | undefined
    for (const found of this.statements.oldest.iterate()) {
      if (count <= maxExchanges && bytes <= maxBytes) break
      const row = sizeRowSchema.parse(found)
      upTo = row.seq
      count--
      bytes -= row.size_bytes
    }
    if (upTo !== undefined) this.evicted += this.statements.deleteUpTo.run(upTo).changes
  }

  private matching(scope: Scope, filter: ExchangeFilter, before: number | undefined, limit: number, whole = false) {
    this.flush()
    const pattern = filter.q === undefined || filter.q === '' ? undefined : searchPattern(filter.q)
    const needBody = whole || pattern !== undefined
    // Scope, cursor and time range narrow in SQL; every filter's meaning is matchesFilter's.
    const where = ['(org = @org OR (org IS NULL AND @unattributed = 1))']
    if (before !== undefined) where.push('seq < @before')
    if (filter.since !== undefined) where.push('started_ms >= @since')
    if (filter.until !== undefined) where.push('started_ms < @until')
    const statement = this.db.prepare(`SELECT seq, summary${needBody ? ', body' : ''} FROM exchanges WHERE ${where.join(' AND ')} ORDER BY seq DESC`)
    const found: Array<{ seq: number; summary: ExchangeSummary; exchange?: Exchange }> = []
    const params = {
      org: scope.org,
      unattributed: scope.unattributed ? 1 : 0,
      ...(before !== undefined ? { before } : {}),
      ...(filter.since !== undefined ? { since: Date.parse(filter.since) } : {}),
      ...(filter.until !== undefined ? { until: Date.parse(filter.until) } : {}),
    }
    for (const stored of statement.iterate(params)) {
      const row = listRowSchema.parse(stored)
      const summary = summaryOfRow(row.summary)
      if (!matchesFilter(summary, filter)) continue
      const exchange = row.body !== undefined ? exchangeOf(row.body) : undefined
      if (pattern !== undefined && (exchange === undefined || !matchesText(exchange, pattern))) continue
      found.push({ seq: row.seq, summary, ...(exchange !== undefined ? { exchange } : {}) })
      if (found.length >= limit) break
    }
    return found
  }
}

function migrate(db: SqliteDatabase): void {
  db.exec('CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)')
  const found = db.prepare('SELECT version FROM schema_version').get()
  const row = found === undefined ? undefined : versionRowSchema.parse(found)
  if (row !== undefined && row.version > SCHEMA_VERSION) {
    throw new Error(`The traffic database was made by a newer Mortar (schema ${row.version}; this one knows ${SCHEMA_VERSION}). Delete ${DATABASE_FILE} in the home directory, or use --capture memory.`)
  }
  db.transaction(() => {
    db.exec(`CREATE TABLE IF NOT EXISTS exchanges (
      seq INTEGER PRIMARY KEY AUTOINCREMENT,
      id TEXT NOT NULL UNIQUE,
      started_ms INTEGER NOT NULL,
      org TEXT,
      size_bytes INTEGER NOT NULL,
      summary TEXT NOT NULL,
      body TEXT NOT NULL
    )`)
    db.exec('CREATE INDEX IF NOT EXISTS exchanges_by_org ON exchanges (org, seq)')
    db.exec('CREATE INDEX IF NOT EXISTS exchanges_by_start ON exchanges (started_ms)')
    if (row === undefined) db.prepare('INSERT INTO schema_version (version) VALUES (?)').run(SCHEMA_VERSION)
  })()
}
