import type { Exchange, ExchangeFilter, ExchangeList, ExchangeListQuery } from '../../shared/api/traffic'
import type { Scope } from './exchange-filter'
import type { ByteChunks } from '../http/json-chunks'

/**
 * The UTF-8 bytes of one of an exchange's texts, at hand (the body as received, the body sent to
 * the model server): a store may copy them instead of encoding `text`, which is exactly that
 * string of the exchange.
 */
export interface KnownBytes {
  readonly text: string
  readonly bytes: Buffer | ByteChunks
}

export interface StoreStats {
  exchanges: number
  bytes: number
  /** Exchanges removed to stay within the limits since the store opened. */
  evicted: number
}

/**
 * Where ended exchanges are kept: in memory, or in SQLite on disk. Both bound what they hold
 * (oldest first), and both answer with the same filter semantics (exchange-filter.ts).
 */
export interface ExchangeStore {
  add(exchange: Exchange, known?: readonly KnownBytes[]): void
  /** Newest first; `cursor` continues after the previous page's last row. */
  list(scope: Scope, query: ExchangeListQuery): ExchangeList
  get(scope: Scope, id: string): Exchange | undefined
  /** Whole exchanges for an export: the given IDs, or all that match, newest first. */
  select(scope: Scope, filter: ExchangeFilter, ids: readonly string[] | undefined): Exchange[]
  /** Delete every exchange the scope can see; returns how many. */
  clear(scope: Scope): number
  stats(): StoreStats
  close(): void
}
