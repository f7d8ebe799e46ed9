import type { CapturedFrame, Exchange, ExchangeFilter, ExchangeList, ExchangeListQuery, CaptureLimits } from '../../shared/api/traffic'
import { matchesFilter, matchesText, searchPattern, summaryOf, visibleTo, type Scope } from './exchange-filter'
import type { ExchangeStore, KnownBytes, StoreStats } from './exchange-store'
import { SLAB_BYTES, TextArena } from './text-arena'
import { viewOffset, type ByteChunks } from '../http/json-chunks'
import { asciiText } from '../http/decode-in-pieces'

/**
 * Texts of at least this many UTF-16 units go to the arena; shorter ones stay strings. A kept
 * string is copied by young collections until it is promoted, then marked by every full one; in
 * the arena it costs neither, only an encoding as it is added and a decoding when it is read. A
 * short exchange's bodies (a few hundred characters each) were then most of what its record kept
 * on the heap. Below this, a string costs the collector about what the record's other small
 * values do (its ids and times).
 */
export const ARENA_MIN_CHARS = 128

/** The exchange's long texts in the order they are kept: the index of each in `spans`. */
const REQUEST_BODY = 0
const MODEL_BODY = 1
const RESPONSE_BODY = 2
const UPSTREAM_BODY = 3
const UPSTREAM_RESPONSE_BODY = 4
/** The exchange's header lists, packed into one text (`packHeaders`). */
const HEADERS = 5
const TEXTS = 6

/** Where a text is in the arena: position, bytes and UTF-16 length (bytes === length: ASCII). */
type Span = [position: number, bytes: number, chars: number]
const NOT_STORED_AT = -1
const NOT_STORED: Span = [NOT_STORED_AT, -1, -1]
/** The position of a text held as pieces (`ArenaTexts.pieces`) rather than at one place. */
const IN_PIECES = -2
/** Whether a span's text is in the arena, at one place or in pieces. */
const held = (position: number): boolean => position !== NOT_STORED_AT

function spanAt(spans: readonly number[], index: number): Span {
  return [spans[3 * index] as number, spans[3 * index + 1] as number, spans[3 * index + 2] as number]
}

/** A stream's frames in the arena: their texts one after the other, their times and lengths here. */
interface PackedFrames {
  span: Span
  times: number[]
  /** Each frame's text length in UTF-16 units, to cut the decoded whole back into frames. */
  lengths: number[]
}

interface ArenaTexts {
  /** The span of each text (REQUEST_BODY…) in threes: position -1 for one kept as a string, IN_PIECES for one held as `pieces`. */
  spans: number[]
  responseFrames: PackedFrames | undefined
  upstreamFrames: PackedFrames | undefined
  /** The header lists, when they were packed (their text is then in the arena at HEADERS's span, or kept here). */
  headers: PackedHeaders | undefined
  /**
   * The body sent (and the model body, when it is that body) as pieces of the arena, in pairs of
   * position and bytes, when most of it is the request body's bytes: those pieces are the request
   * body's own place in the arena, not a copy of them (`copyReferring`).
   */
  pieces: number[] | undefined
}

/**
 * An exchange's header lists — the request's, the response's, the model server's reply's — as one
 * text: each name and value followed by a line feed, which no header holds. Kept as 25–30 pairs,
 * they were about 70 small objects per exchange: most of what capture keeps on the heap for a
 * short exchange, copied by young collections until promoted and then marked by every full one.
 */
interface PackedHeaders {
  /** How many pairs each list has, in that order (two when there is no model server). */
  counts: number[]
  /** The packed text when it stays a string (short, or beyond ASCII); '' when the arena holds it, as for the exchange's other texts. */
  text: string
}

type HeaderPairs = Exchange['request']['headers']
const SEPARATOR = '\n'
const NO_HEADERS: HeaderPairs = []

/** The lists packed into one text, or undefined when a name or value holds the separator (then they stay as they are). */
function packHeaders(lists: readonly HeaderPairs[]): { text: string; counts: number[] } | undefined {
  const parts: string[] = []
  for (const list of lists) {
    for (const [name, value] of list) {
      if (name.includes(SEPARATOR) || value.includes(SEPARATOR)) return undefined
      parts.push(name, value)
    }
  }
  // Joined, one flat string: built by `+=`, it would be a rope of a hundred pieces, each an object.
  return { text: parts.length === 0 ? '' : parts.join(SEPARATOR) + SEPARATOR, counts: lists.map((list) => list.length) }
}

/** The lists `packHeaders` packed. */
function unpackHeaders(text: string, counts: readonly number[]): HeaderPairs[] {
  const parts = text.split(SEPARATOR)
  let at = 0
  return counts.map((count) => {
    const list: [string, string][] = []
    for (let i = 0; i < count; i++, at += 2) list.push([parts[at] as string, parts[at + 1] as string])
    return list
  })
}

interface Entry {
  seq: number
  /** The exchange, with '' (or no frames) in place of each text the arena holds. */
  exchange: Exchange
  /** Its bytes in the arena: `[start, end)`. */
  start: number
  end: number
  texts: ArenaTexts | undefined
}

/**
 * Ended exchanges in memory, oldest first, within a byte budget and a count limit: adding one
 * evicts the oldest until both hold again. An exchange arrives already fitted to the per-exchange
 * limit (truncate-exchange.ts), so one never crowds out the whole store.
 *
 * The long texts (bodies, and a stream's frames together) are kept as UTF-8 in one arena for the
 * whole store (text-arena.ts), in the order the exchanges came, so eviction frees the arena from
 * its oldest end exactly. An exchange's arena bytes are never more than its `size_bytes`, so the
 * byte budget alone decides eviction, as before. Texts with lone surrogates (which UTF-8 cannot
 * carry) stay strings, so every text reads back exactly as it was added.
 */
export class MemoryStore implements ExchangeStore {
  /** Entries before `first` are released (undefined) until the next compaction drops their slots. */
  private entries: Array<Entry | undefined> = []
  /** Index of the oldest live entry: eviction advances it, and the array is compacted now and then. */
  private first = 0
  private nextSeq = 1
  private bytes = 0
  private evicted = 0
  readonly keepsBytesAtHand = true
  private readonly arena: TextArena
  /** The entry whose texts are being written, which the arena must not reclaim. */
  private writing: Entry | undefined

  constructor(
    private readonly limits: Pick<CaptureLimits, 'max_bytes' | 'max_exchanges'>,
    slabBytes = SLAB_BYTES,
  ) {
    this.arena = new TextArena(limits.max_bytes, () => this.reclaim(), slabBytes)
  }

  add(exchange: Exchange, known?: KnownBytes): void {
    const position = this.arena.position
    const entry: Entry = { seq: this.nextSeq++, exchange, start: position, end: position, texts: undefined }
    this.entries.push(entry)
    this.bytes += exchange.size_bytes
    while (this.size > 0 && (this.bytes > this.limits.max_bytes || this.size > this.limits.max_exchanges)) this.evictOldest()
    if (this.first > 1024 && this.first * 2 > this.entries.length) {
      this.entries = this.entries.slice(this.first)
      this.first = 0
    }
    if (this.size > 0) this.store(entry, known)
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
      const entry = this.entries[i]
      if (entry?.exchange.id === id) return visibleTo(scope, entry.exchange.org) ? this.whole(entry) : undefined
    }
    return undefined
  }

  select(scope: Scope, filter: ExchangeFilter, ids: readonly string[] | undefined): Exchange[] {
    if (ids !== undefined) return ids.map((id) => this.get(scope, id)).filter((exchange) => exchange !== undefined)
    return this.matching(scope, filter, Infinity, Infinity).map((entry) => this.whole(entry))
  }

  clear(scope: Scope): number {
    const kept = this.entries.slice(this.first).filter((entry) => entry !== undefined && !visibleTo(scope, entry.exchange.org))
    const deleted = this.size - kept.length
    // The deleted exchanges' bytes leave gaps: the kept ones move back over them, oldest first, so
    // the arena again holds exactly the live texts, in order.
    let to = this.entries[this.first]?.start ?? this.arena.position
    for (const entry of kept) {
      if (entry === undefined) continue
      const length = entry.end - entry.start
      if (entry.start > to) {
        this.arena.move(entry.start, to, length)
        shift(entry, entry.start - to)
      }
      to += length
    }
    this.arena.truncate(to)
    this.entries = kept
    this.first = 0
    this.bytes = kept.reduce((sum, entry) => sum + (entry?.exchange.size_bytes ?? 0), 0)
    return deleted
  }

  stats(): StoreStats {
    return { exchanges: this.size, bytes: this.bytes, evicted: this.evicted }
  }

  /** The arena's bytes held, slabs allocated and capacity (tests, diagnostics). */
  arenaUse(): { used: number; allocated: number; capacity: number } {
    return { used: this.arena.used, allocated: this.arena.allocated, capacity: this.arena.capacity }
  }

  close(): void {
    this.entries = []
    this.first = 0
    this.bytes = 0
    this.arena.free()
  }

  private get size(): number {
    return this.entries.length - this.first
  }

  private evictOldest(): void {
    const oldest = this.entries[this.first]
    // Released at once; the slot itself goes at the next compaction.
    this.entries[this.first++] = undefined
    this.bytes -= oldest?.exchange.size_bytes ?? 0
    this.evicted++
    this.arena.release(this.entries[this.first]?.start ?? this.arena.position)
  }

  /**
   * The arena wants room the budget did not free. Not reached while each exchange's arena bytes
   * stay within its `size_bytes`; if it is, the oldest exchanges go, never the one being written.
   */
  private reclaim(): boolean {
    if (this.entries[this.first] === this.writing) return false
    this.evictOldest()
    return true
  }

  /**
   * Move the entry's long texts to the arena, keeping in the entry only where they are. A text
   * whose bytes are `known` is copied from them when they are ASCII (one byte per character), or,
   * for the body sent, referred to where they are the request body's (`copyReferring`).
   */
  private store(entry: Entry, known: KnownBytes | undefined): void {
    const { exchange } = entry
    const { upstream } = exchange
    const headerLists = upstream === null ? [exchange.request.headers, exchange.response.headers] : [exchange.request.headers, exchange.response.headers, upstream.headers]
    const packed = packHeaders(headerLists)
    const texts = [exchange.request.body, exchange.model_body, exchange.response.body, upstream?.body ?? null, upstream?.response_body ?? null, packed?.text ?? null]
    const spans: number[] = []
    let any = false
    let restored = false
    /** The request body's bytes and where the arena holds them, once copied: the body sent may refer to them. */
    let requestCopy: { bytes: Buffer; position: number } | undefined
    let pieces: number[] | undefined
    this.writing = entry
    for (let i = 0; i < TEXTS; i++) {
      const text = texts[i] ?? null
      const bytes = knownBytesAt(i, known)
      // Left out of the record ('', its bytes at hand): the bytes are the text, and ASCII.
      const leftOut = text === '' && bytes !== undefined && bytes.length > 0
      const chars = leftOut ? bytes.length : (text?.length ?? 0)
      let span = NOT_STORED
      // The packed headers go only as ASCII, whose bytes their size counted (a pair's separators, two, are within the four it counts).
      if (text !== null && chars >= ARENA_MIN_CHARS && i === HEADERS) span = this.write(text, onlyAscii)
      else if (text !== null && chars >= ARENA_MIN_CHARS) {
        // The same text twice (the body sent is often the model body) is kept once: as the
        // recorder knows it, else as a comparison finds it.
        const same = known === undefined ? texts.indexOf(text) : i === UPSTREAM_BODY && known.modelBodySent ? MODEL_BODY : i
        if (same < i) span = spanAt(spans, same)
        // Bytes at hand that are ASCII (one byte per character) are copied as they are; the body
        // sent, spliced from the request body's bytes, refers to that body's place where it can.
        else if (bytes !== undefined && bytes.length === chars) {
          // One text at most is held in pieces (the slot is one): the model body only when it is
          // the body sent (whose span the body sent then takes), else the body sent.
          const referring = (i === MODEL_BODY || i === UPSTREAM_BODY) && pieces === undefined && requestCopy !== undefined && !Buffer.isBuffer(bytes) ? this.copyReferring(bytes, requestCopy) : undefined
          if (referring !== undefined) pieces = referring
          span = referring !== undefined ? [IN_PIECES, bytes.length, chars] : this.copy(bytes, chars)
          if (i === REQUEST_BODY && Buffer.isBuffer(bytes) && held(span[0])) requestCopy = { bytes, position: span[0] }
        } else span = this.write(text, isWellFormed)
      }
      // A text left out that the arena does not hold is kept in the entry as any short text is.
      if (leftOut && !held(span[0])) {
        texts[i] = asciiTextOf(bytes)
        restored = true
      }
      if (held(span[0])) any = true
      spans.push(...span)
    }
    const responseFrames = this.packFrames(exchange.response.frames)
    const upstreamFrames = upstream === null ? undefined : this.packFrames(upstream.frames)
    this.writing = undefined
    entry.end = this.arena.position
    if (!any && !restored && responseFrames === undefined && upstreamFrames === undefined && packed === undefined) return
    const kept = (index: number): string | null => (held(spans[3 * index] as number) ? '' : (texts[index] ?? null))
    const headers = packed === undefined ? undefined : { counts: packed.counts, text: kept(HEADERS) ?? '' }
    // Packed, the lists are kept empty in the exchange.
    const headersOf = (list: HeaderPairs): HeaderPairs => (packed === undefined ? list : NO_HEADERS)
    entry.texts = { spans, responseFrames, upstreamFrames, headers, pieces }
    entry.exchange = {
      ...exchange,
      request: { ...exchange.request, headers: headersOf(exchange.request.headers), body: kept(REQUEST_BODY) ?? '' },
      model_body: kept(MODEL_BODY),
      response: {
        ...exchange.response,
        headers: headersOf(exchange.response.headers),
        frames: responseFrames === undefined ? exchange.response.frames : [],
        body: kept(RESPONSE_BODY),
      },
      upstream:
        upstream === null
          ? null
          : {
              ...upstream,
              body: kept(UPSTREAM_BODY) ?? '',
              headers: headersOf(upstream.headers),
              frames: upstreamFrames === undefined ? upstream.frames : [],
              response_body: kept(UPSTREAM_RESPONSE_BODY),
            },
    }
  }

  /**
   * Write `text` to the arena: its span, or NOT_STORED when it does not fit or is not `wellFormed`
   * — asked only of a text with characters beyond ASCII (one byte per character proves it ASCII).
   */
  private write(text: string, wellFormed: (text: string) => boolean): Span {
    const position = this.arena.position
    const bytes = this.arena.write(text)
    if (bytes === undefined) return NOT_STORED
    if (bytes !== text.length && !wellFormed(text)) {
      this.arena.truncate(position)
      return NOT_STORED
    }
    return [position, bytes, text.length]
  }

  /**
   * The ASCII pieces of a body sent, as pieces of the arena (`ArenaTexts.pieces`): a piece that is
   * a view of the request body's bytes (the client's own bytes spliced into the body sent, as for
   * chat completions) is the request body's place in the arena, the others are copied: a chat turn
   * of 128 KB is copied once, not twice. Undefined, and nothing kept, when less than half of the
   * bytes are the request body's (a translated body: then one copy costs less to read back), or
   * when the arena cannot hold the others.
   */
  private copyReferring(bytes: ByteChunks, request: { bytes: Buffer; position: number }): number[] | undefined {
    let shared = 0
    const offsets = bytes.chunks.map((chunk) => {
      const offset = viewOffset(chunk, request.bytes)
      if (offset >= 0) shared += chunk.length
      return offset
    })
    if (shared * 2 < bytes.length) return undefined
    const start = this.arena.position
    const pieces: number[] = []
    for (const [i, chunk] of bytes.chunks.entries()) {
      if (chunk.length === 0) continue
      const offset = offsets[i] as number
      const position = offset >= 0 ? request.position + offset : this.arena.position
      if (offset < 0 && !this.arena.copy([chunk], chunk.length)) {
        this.arena.truncate(start)
        return undefined
      }
      // Pieces that follow each other in the arena are one piece.
      const last = pieces.length - 2
      if (last >= 0 && (pieces[last] as number) + (pieces[last + 1] as number) === position) pieces[last + 1] = (pieces[last + 1] as number) + chunk.length
      else pieces.push(position, chunk.length)
    }
    return pieces
  }

  /** Copy the ASCII bytes of a text of `chars` characters to the arena: its span, or NOT_STORED when they do not fit. */
  private copy(bytes: Buffer | ByteChunks, chars: number): Span {
    const position = this.arena.position
    return this.arena.copy(Buffer.isBuffer(bytes) ? [bytes] : bytes.chunks, bytes.length) ? [position, bytes.length, chars] : NOT_STORED
  }

  private packFrames(frames: readonly CapturedFrame[]): PackedFrames | undefined {
    let chars = 0
    for (const frame of frames) chars += frame.raw.length
    if (chars < ARENA_MIN_CHARS) return undefined
    // Each frame on its own: two ill-formed frames can make a well-formed whole.
    const span = this.write(frames.map((frame) => frame.raw).join(''), () => frames.every((frame) => isWellFormed(frame.raw)))
    if (span[0] < 0) return undefined
    return { span, times: frames.map((frame) => frame.t_ms), lengths: frames.map((frame) => frame.raw.length) }
  }

  /** The exchange as it was added. */
  private whole(entry: Entry): Exchange {
    const { exchange, texts } = entry
    if (texts === undefined) return exchange
    const { upstream } = exchange
    const read = this.reader(texts)
    const searched = this.searched(entry)
    const packed = texts.headers
    const lists = packed === undefined ? undefined : unpackHeaders(read(HEADERS, packed.text) ?? '', packed.counts)
    return {
      ...searched,
      request: lists === undefined ? searched.request : { ...searched.request, headers: lists[0] as HeaderPairs },
      response: lists === undefined ? searched.response : { ...searched.response, headers: lists[1] as HeaderPairs },
      upstream:
        upstream === null
          ? null
          : {
              ...upstream,
              body: read(UPSTREAM_BODY, upstream.body) ?? '',
              headers: lists?.[2] ?? upstream.headers,
              frames: this.unpackFrames(texts.upstreamFrames, upstream.frames),
              response_body: read(UPSTREAM_RESPONSE_BODY, upstream.response_body),
            },
    }
  }

  /** The exchange with the texts the search reads (exchange-filter.ts), the upstream's left in the arena. */
  private searched(entry: Entry): Exchange {
    const { exchange, texts } = entry
    if (texts === undefined) return exchange
    const read = this.reader(texts)
    return {
      ...exchange,
      request: { ...exchange.request, body: read(REQUEST_BODY, exchange.request.body) ?? '' },
      model_body: read(MODEL_BODY, exchange.model_body),
      response: {
        ...exchange.response,
        frames: this.unpackFrames(texts.responseFrames, exchange.response.frames),
        body: read(RESPONSE_BODY, exchange.response.body),
      },
    }
  }

  private reader(texts: ArenaTexts): (index: number, kept: string | null) => string | null {
    return (index, kept) => {
      const [position, bytes, chars] = spanAt(texts.spans, index)
      if (position === IN_PIECES) return this.readPieces(texts.pieces ?? [])
      return held(position) ? this.arena.read(position, bytes, bytes === chars) : kept
    }
  }

  /** The text of ASCII pieces of the arena (`ArenaTexts.pieces`), as one flat string. */
  private readPieces(pieces: readonly number[]): string {
    const parts: string[] = []
    for (let i = 0; i + 1 < pieces.length; i += 2) parts.push(this.arena.read(pieces[i] as number, pieces[i + 1] as number, true))
    return parts.join('')
  }

  private unpackFrames(packed: PackedFrames | undefined, kept: CapturedFrame[]): CapturedFrame[] {
    if (packed === undefined) return kept
    const [position, bytes, chars] = packed.span
    const all = this.arena.read(position, bytes, bytes === chars)
    const frames: CapturedFrame[] = []
    for (let i = 0, at = 0; i < packed.times.length; i++) {
      const length = packed.lengths[i] as number
      frames.push({ t_ms: packed.times[i] as number, raw: all.slice(at, at + length) })
      at += length
    }
    return frames
  }

  private matching(scope: Scope, filter: ExchangeFilter, before: number, limit: number): Entry[] {
    const pattern = filter.q === undefined || filter.q === '' ? undefined : searchPattern(filter.q)
    const found: Entry[] = []
    for (let i = this.entries.length - 1; i >= this.first && found.length < limit; i--) {
      const entry = this.entries[i]
      if (entry === undefined || entry.seq >= before) continue
      const { exchange } = entry
      if (!visibleTo(scope, exchange.org) || !matchesFilter(exchange, filter)) continue
      if (pattern !== undefined && !matchesText(this.searched(entry), pattern)) continue
      found.push(entry)
    }
    return found
  }
}

/** For `write`: a text with characters beyond ASCII is not kept in the arena. */
const onlyAscii = (): boolean => false

/** No lone surrogates: the text survives UTF-8 unchanged (String#isWellFormed, Node 20 and later). */
function isWellFormed(text: string): boolean {
  return (text as string & { isWellFormed(): boolean }).isWellFormed()
}

/** The entry's bytes moved `delta` back in the arena. */
function shift(entry: Entry, delta: number): void {
  entry.start -= delta
  entry.end -= delta
  const { texts } = entry
  if (texts === undefined) return
  for (let i = 0; i < texts.spans.length; i += 3) if ((texts.spans[i] as number) >= 0) texts.spans[i] = (texts.spans[i] as number) - delta
  if (texts.responseFrames !== undefined) texts.responseFrames.span[0] -= delta
  if (texts.upstreamFrames !== undefined) texts.upstreamFrames.span[0] -= delta
  // A piece's position is in the entry's own bytes (its own copies, or its request body's).
  if (texts.pieces !== undefined) for (let i = 0; i < texts.pieces.length; i += 2) texts.pieces[i] = (texts.pieces[i] as number) - delta
}

/** The bytes at hand of the text at `index`, when the stages handed them over. */
function knownBytesAt(index: number, known: KnownBytes | undefined): Buffer | ByteChunks | undefined {
  if (known === undefined) return undefined
  switch (index) {
    case REQUEST_BODY:
      return known.requestBody
    case MODEL_BODY:
      return known.modelBodySent ? known.sentBody : undefined
    case UPSTREAM_BODY:
      return known.sentBody
    case RESPONSE_BODY:
      return known.responseBody
    case UPSTREAM_RESPONSE_BODY:
      return known.upstreamReply
    default:
      return undefined
  }
}

/** The text of ASCII bytes at hand: a text the record left out, kept in the entry after all. */
function asciiTextOf(bytes: Buffer | ByteChunks): string {
  return Buffer.isBuffer(bytes) ? asciiText(bytes) : bytes.chunks.map((chunk) => asciiText(chunk)).join('')
}
