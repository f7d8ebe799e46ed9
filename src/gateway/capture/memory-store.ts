import type { CaptureLimits, Exchange, ExchangeFilter, ExchangeList, ExchangeListQuery } from '../../shared/api/traffic'
import { matchesFilter, matchesText, searchPattern, summaryOf, visibleTo, type Scope } from './exchange-filter'
import type { ExchangeStore, StoreStats } from './exchange-store'

interface Entry {
  seq: number
  exchange: Exchange
}

/**
 * Ended exchanges in memory, oldest first, within a byte budget and a count limit: adding one
 * evicts the oldest until both hold again. An exchange arrives already fitted to the per-exchange
 * limit (truncate-exchange.ts), so one never crowds out the whole store.
 */
export class MemoryStore implements ExchangeStore {
  /** Entries before `first` are released (undefined) until the next compaction drops their slots. */
  private entries: Array<Entry | undefined> = []
  /** Index of the oldest live entry: eviction advances it, and the array is compacted now and then. */
  private first = 0
  private nextSeq = 1
  private bytes = 0
  private evicted = 0

  constructor(private readonly limits: Pick<CaptureLimits, 'max_bytes' | 'max_exchanges'>) {}

  add(exchange: Exchange): void {
    this.entries.push({ seq: this.nextSeq++, exchange })
    this.bytes += exchange.size_bytes
    while (this.size > 0 && (this.bytes > this.limits.max_bytes || this.size > this.limits.max_exchanges)) {
      const oldest = this.entries[this.first]
      // Released at once; the slot itself goes at the next compaction.
      this.entries[this.first++] = undefined
      this.bytes -= oldest?.exchange.size_bytes ?? 0
      this.evicted++
    }
    if (this.first > 1024 && this.first * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.first)
      this.first = 0
    }
  }

  list(scope: Scope, query: ExchangeListQuery): ExchangeList {
    const before = query.cursor === undefined ? Infinity : Number(query.cursor)
    const found = this.matching(scope, query, before, query.limit + 1)
    const page = found.slice(0, query.limit)
    const last = page.at(-1)
    return {
      object: 'list',
      data: page.map((entry) => summaryOf(entry.exchange)),
      next_cursor: found.length > query.limit && last !== undefined ? String(last.seq) : null,
    }
  }

  get(scope: Scope, id: string): Exchange | undefined {
    for (let i = this.entries.length - 1; i >= this.first; i--) {
      const exchange = this.entries[i]?.exchange
      if (exchange?.id === id) return visibleTo(scope, exchange.org) ? exchange : undefined
    }
    return undefined
  }

  select(scope: Scope, filter: ExchangeFilter, ids: readonly string[] | undefined): Exchange[] {
    if (ids !== undefined) return ids.map((id) => this.get(scope, id)).filter((exchange) => exchange !== undefined)
    return this.matching(scope, filter, Infinity, Infinity).map((entry) => entry.exchange)
  }

  clear(scope: Scope): number {
    const kept = this.entries.slice(this.first).filter((entry) => entry !== undefined && !visibleTo(scope, entry.exchange.org))
    const deleted = this.size - kept.length
    this.entries = kept
    this.first = 0
    this.bytes = kept.reduce((sum, entry) => sum + (entry?.exchange.size_bytes ?? 0), 0)
    return deleted
  }

  stats(): StoreStats {
    return { exchanges: this.size, bytes: this.bytes, evicted: this.evicted }
  }

  close(): void {
    this.entries = []
    this.first = 0
    this.bytes = 0
  }

  private get size(): number {
    return this.entries.length - this.first
  }

  private matching(scope: Scope, filter: ExchangeFilter, before: number, limit: number): Entry[] {
    const pattern = filter.q === undefined || filter.q === '' ? undefined : searchPattern(filter.q)
    const found: Entry[] = []
    for (let i = this.entries.length - 1; i >= this.first && found.length < limit; i--) {
      const entry = this.entries[i]
      if (entry === undefined || entry.seq >= before) continue
      const { exchange } = entry
      if (!visibleTo(scope, exchange.org) || !matchesFilter(exchange, filter)) continue
      if (pattern !== undefined && !matchesText(exchange, pattern)) continue
      found.push(entry)
    }
    return found
  }
}
