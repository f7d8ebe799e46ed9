import type { Exchange, ExchangeFilter, ExchangeList, ExchangeListQuery } from '../../shared/api/traffic'
import type { Scope } from './exchange-filter'
import type { ByteChunks } from '../http/json-chunks'

/**
 * What the recorder knows of an exchange's long texts, so that a store need not find it out by
 * comparing or encoding them (texts made of pieces would be joined first, each a copy of up to the
 * whole body): the bytes of the body as received, when the reader found them ASCII, of the body
 * sent, of a JSON reply written from pieces, and of the model server's reply read whole; and
 * whether the model body is the body sent. A store copies bytes only where they are ASCII (as
 * many bytes as characters), and encodes the text otherwise.
 */
export interface KnownBytes {
  /**
   * Exactly the bytes of `exchange.request.body` — or, when that is '' and these are not empty,
   * the bytes of a text the record left out (ASCII, holding no credential) for a store that
   * `keepsBytesAtHand` to keep in its place.
   */
  readonly requestBody?: Buffer | undefined
  /** Exactly the bytes of `exchange.upstream.body`, or of a text left out as `requestBody` may be (then the model body too). */
  readonly sentBody?: Buffer | ByteChunks | undefined
  /** Exactly the bytes of `exchange.response.body` (a JSON reply written from pieces at hand). */
  readonly responseBody?: ByteChunks | undefined
  /** Exactly the bytes of `exchange.upstream.response_body`. */
  readonly upstreamReply?: Buffer | undefined
  /** `exchange.model_body` is `exchange.upstream.body`. */
  readonly modelBodySent: boolean
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
  /** Whether `add` keeps a text left out of the record from its bytes (KnownBytes); a store that does not is given whole records. */
  readonly keepsBytesAtHand: boolean
  add(exchange: Exchange, known?: KnownBytes): void
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
