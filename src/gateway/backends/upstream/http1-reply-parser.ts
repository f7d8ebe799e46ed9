import type { IncomingHttpHeaders } from 'node:http'

/** A reply's status line and header fields, as Node's client would present them. */
export interface ReplyHead {
  statusCode: number
  /** Names and values in the order sent, names as written: what capture records. */
  rawHeaders: string[]
  /** Lower-cased names; repeated fields joined with `, `, except `set-cookie` (a list). */
  headers: IncomingHttpHeaders
}

export interface ReplyParserEvents {
  head(head: ReplyHead): void
  body(bytes: Buffer): void
  /** The reply is complete; `reusable`: its connection may carry another request. */
  end(reusable: boolean): void
  /** `cutShort`: the connection closed before the reply's end; else the bytes were not HTTP/1.x. */
  error(message: string, cutShort: boolean): void
}

/** The most a reply's head may take; a server that sends more is not a model server. */
const MAX_HEAD_BYTES = 64 * 1024
/** A chunk-size line (hex digits and extensions) longer than this is not HTTP. */
const MAX_CHUNK_LINE_BYTES = 1024
const CRLF = 0x0a

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-data-crlf' | 'trailers' | 'until-close' | 'done' | 'failed'

/**
 * An HTTP/1.1 reply read incrementally from a connection's bytes: the head (interim 1xx replies
 * skipped), then the body as it is framed — `Transfer-Encoding: chunked` (decoded), a
 * `Content-Length`, or everything until the server closes the connection. Body bytes are handed
 * on as views of the socket's buffers, never copied.
 *
 * A connection is reusable after the reply when the reply was framed (not close-delimited), the
 * server did not say `Connection: close` (or, for HTTP/1.0, did say `keep-alive`), and nothing
 * came after the reply's end.
 */
export class Http1ReplyParser {
  private state: State = 'head'
  /** Bytes of a head, a chunk-size line or trailers not yet complete. */
  private pending: Buffer | undefined
  private remaining = 0
  private keepAlive = true
  /** Whether any byte of a reply came: a connection closed before one never answered. */
  private sawBytes = false

  constructor(
    private readonly events: ReplyParserEvents,
    private readonly expectsBody: boolean,
  ) {}

  get started(): boolean {
    return this.sawBytes
  }

  get finished(): boolean {
    return this.state === 'done' || this.state === 'failed'
  }

  push(chunk: Buffer): void {
    if (chunk.length > 0) this.sawBytes = true
    let at = 0
    while (at < chunk.length) {
      switch (this.state) {
        case 'head':
          at = this.readHead(chunk, at)
          break
        case 'length':
          at = this.readCounted(chunk, at)
          if (this.remaining === 0) this.finish(at === chunk.length)
          break
        case 'chunk-size':
          at = this.readChunkSize(chunk, at)
          break
        case 'chunk-data':
          at = this.readCounted(chunk, at)
          if (this.remaining === 0) {
            this.state = 'chunk-data-crlf'
            this.remaining = 2
          }
          break
        case 'chunk-data-crlf': {
          // The CRLF after a chunk's data (or a bare LF), which may itself be split between reads.
          if (this.remaining === 2 && chunk[at] === CRLF) this.remaining = 1
          const expected = this.remaining === 2 ? 0x0d : CRLF
          if (chunk[at] !== expected) return this.fail('a chunk did not end with CRLF')
          at++
          if (--this.remaining === 0) this.state = 'chunk-size'
          break
        }
        case 'trailers':
          at = this.readTrailers(chunk, at)
          break
        case 'until-close':
          this.events.body(at === 0 ? chunk : chunk.subarray(at))
          at = chunk.length
          break
        case 'done':
          // Bytes after a complete reply: the connection is out of step, and closed.
          this.keepAlive = false
          return
        case 'failed':
          return
      }
    }
  }

  /** The server closed the connection: the end of a close-delimited body, else a reply cut short. */
  closed(): void {
    if (this.state === 'until-close') return this.finish(false)
    if (this.finished) return
    this.fail(this.sawBytes ? 'the connection closed before the reply ended' : 'the connection closed before any reply', true)
  }

  /** Up to `remaining` body bytes (of a Content-Length, or of one chunk), handed on as a view. */
  private readCounted(chunk: Buffer, from: number): number {
    const take = Math.min(this.remaining, chunk.length - from)
    this.remaining -= take
    this.events.body(from === 0 && take === chunk.length ? chunk : chunk.subarray(from, from + take))
    return from + take
  }

  private readHead(chunk: Buffer, from: number): number {
    // Empty lines before a status line are skipped, as Node's parser does.
    if (this.pending === undefined) while (from < chunk.length && (chunk[from] === 0x0d || chunk[from] === CRLF)) from++
    if (from === chunk.length) return from
    const bytes = this.joinPending(chunk, from)
    const [end, afterHead] = headEnd(bytes)
    if (end === -1) {
      if (bytes.length > MAX_HEAD_BYTES) this.fail('its reply head was too large')
      else this.pending = bytes
      return chunk.length
    }
    // `bytes` is what was pending, then `chunk` from `from`: where in `chunk` the head ended.
    const pendingLength = bytes.length - (chunk.length - from)
    this.pending = undefined
    const next = from + afterHead - pendingLength
    const head = parseHead(bytes.toString('latin1', 0, end))
    if (typeof head === 'string') {
      this.fail(head)
      return chunk.length
    }
    if (head.statusCode >= 100 && head.statusCode < 200) {
      // An interim reply (100 Continue, 103 Early Hints): the real one follows.
      if (head.statusCode === 101) this.fail('it switched protocols')
      return next
    }
    this.startBody(head, next === chunk.length)
    return next
  }

  /** `nothingAfter`: the head ended its read, so a reply without a body ends with nothing after it. */
  private startBody(head: ReplyHead & { http10: boolean }, nothingAfter: boolean): void {
    const connection = headerTokens(head.headers.connection)
    this.keepAlive = head.http10 ? connection.includes('keep-alive') : !connection.includes('close')
    const transferEncoding = headerTokens(head.headers['transfer-encoding'])
    const contentLength = head.headers['content-length']
    this.events.head(head)
    if (this.state !== 'head') return // the head's handler gave up on the reply
    if (!this.expectsBody || head.statusCode === 204 || head.statusCode === 304) return this.finish(nothingAfter)
    if (transferEncoding.length > 0) {
      if (transferEncoding[transferEncoding.length - 1] !== 'chunked') {
        this.keepAlive = false
        this.state = 'until-close'
        return
      }
      // Both framings sent: chunked wins, and the connection is not trusted with another request.
      if (contentLength !== undefined) this.keepAlive = false
      this.state = 'chunk-size'
      return
    }
    if (contentLength !== undefined) {
      this.remaining = Number(contentLength)
      if (this.remaining === 0) return this.finish(nothingAfter)
      this.state = 'length'
      return
    }
    this.keepAlive = false
    this.state = 'until-close'
  }

  private readChunkSize(chunk: Buffer, from: number): number {
    const lineEnd = chunk.indexOf(CRLF, from)
    if (lineEnd === -1) {
      this.pending = this.joinPending(chunk, from)
      if (this.pending.length > MAX_CHUNK_LINE_BYTES) this.fail('a chunk-size line was too long')
      return chunk.length
    }
    const size = (this.pending === undefined ? plainChunkSize(chunk, from, lineEnd) : undefined) ?? this.chunkSizeOf(this.joinPending(chunk.subarray(0, lineEnd + 1), from))
    this.pending = undefined
    if (size === undefined) {
      this.fail('a chunk size was not hexadecimal')
      return chunk.length
    }
    if (size === 0) this.state = 'trailers'
    else {
      this.remaining = size
      this.state = 'chunk-data'
    }
    return lineEnd + 1
  }

  /** The size on any chunk-size line (`line`: its bytes, LF included), blanks and extensions allowed; undefined when it is not hexadecimal. */
  private chunkSizeOf(line: Buffer): number | undefined {
    const digits = line.toString('latin1').replace(/\r?\n$/, '').split(';', 1)[0]!.trim()
    return CHUNK_SIZE.test(digits) ? Number.parseInt(digits, 16) : undefined
  }

  /** Trailer fields after the last chunk, read and dropped, up to the empty line. */
  private readTrailers(chunk: Buffer, from: number): number {
    let at = from
    while (at < chunk.length) {
      const lineEnd = chunk.indexOf(CRLF, at)
      if (lineEnd === -1) {
        this.pending = this.joinPending(chunk, at)
        if (this.pending.length > MAX_HEAD_BYTES) this.fail('its trailers were too large')
        return chunk.length
      }
      const line = this.joinPending(chunk.subarray(0, lineEnd + 1), at)
      this.pending = undefined
      at = lineEnd + 1
      if (line.length <= 2 && (line.length === 1 || line[0] === 0x0d)) {
        this.finish(at === chunk.length)
        return at
      }
    }
    return at
  }

  /** `pending` and then `chunk` from `from`: `chunk` itself (or a view) when nothing was pending. */
  private joinPending(chunk: Buffer, from: number): Buffer {
    const rest = from === 0 ? chunk : chunk.subarray(from)
    if (this.pending === undefined) return rest
    return Buffer.concat([this.pending, rest])
  }

  private finish(nothingAfter: boolean): void {
    if (this.finished) return
    this.state = 'done'
    this.events.end(this.keepAlive && nothingAfter)
  }

  private fail(message: string, cutShort = false): void {
    if (this.finished) return
    this.state = 'failed'
    this.keepAlive = false
    this.events.error(message, cutShort)
  }
}

/**
 * Where a head ends: the offset of its blank line and of the first byte after it, or -1. A line
 * ends with CRLF or, from a lenient server, a bare LF.
 */
function headEnd(bytes: Buffer): [number, number] {
  let at = bytes.indexOf(CRLF)
  while (at !== -1) {
    if (bytes[at + 1] === CRLF) return [at > 0 && bytes[at - 1] === 0x0d ? at - 1 : at, at + 2]
    if (bytes[at + 1] === 0x0d && bytes[at + 2] === CRLF) return [at > 0 && bytes[at - 1] === 0x0d ? at - 1 : at, at + 3]
    at = bytes.indexOf(CRLF, at + 1)
  }
  return [-1, -1]
}

/** A chunk size: hexadecimal, at most 13 digits (within a double's exact integers). */
const CHUNK_SIZE = /^[0-9a-fA-F]{1,13}$/
const MAX_CHUNK_SIZE_DIGITS = 13
const CR = 0x0d
const SEMICOLON = 0x3b

/**
 * The size on a chunk-size line (`chunk` from `from`, its LF at `lineEnd`) that is hexadecimal
 * digits only, then an extension (`;…`) or the line's end: read from the bytes, with no string
 * made. A model server sends one such line per streamed event, and decoding, trimming and splitting
 * each was most of the parser's time per event. Undefined for any other line (blanks, a size too
 * long, no digits), which `chunkSizeOf` reads or refuses.
 */
function plainChunkSize(chunk: Buffer, from: number, lineEnd: number): number | undefined {
  let size = 0
  let at = from
  for (; at < lineEnd && at - from < MAX_CHUNK_SIZE_DIGITS; at++) {
    const digit = hexDigit(chunk[at]!)
    if (digit === -1) break
    size = size * 16 + digit
  }
  if (at === from) return undefined
  const next = chunk[at]
  return at === lineEnd || next === SEMICOLON || (next === CR && at + 1 === lineEnd) ? size : undefined
}

/** A hexadecimal digit's value, or -1. */
function hexDigit(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  const lower = byte | 0x20
  return lower >= 0x61 && lower <= 0x66 ? lower - 0x61 + 10 : -1
}

const NO_TOKENS: readonly string[] = []

function headerTokens(value: string | string[] | undefined): readonly string[] {
  if (value === undefined) return NO_TOKENS
  return (Array.isArray(value) ? value.join(',') : value)
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '')
}

const STATUS_LINE = /^HTTP\/1\.([01]) (\d{3})(?: .*)?$/
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const CONTENT_LENGTH = /^\d{1,15}$/

/** The head's text (status line and fields, without the blank line), or why it is not HTTP/1.x. */
function parseHead(text: string): (ReplyHead & { http10: boolean }) | string {
  // Lines end at LF, a CR before it dropped; walked by index rather than split (a head is parsed per reply).
  let lineEnd = text.indexOf('\n')
  const statusLine = lineOf(text, 0, lineEnd)
  const status = STATUS_LINE.exec(statusLine)
  if (status === null) return `its reply did not start with an HTTP/1.x status line (${statusLine.slice(0, 60)})`
  const rawHeaders: string[] = []
  const headers: IncomingHttpHeaders = {}
  while (lineEnd !== -1) {
    const start = lineEnd + 1
    lineEnd = text.indexOf('\n', start)
    const line = lineOf(text, start, lineEnd)
    const colon = line.indexOf(':')
    const name = colon > 0 ? line.slice(0, colon) : ''
    if (!FIELD_NAME.test(name)) return `its reply had a malformed header line (${line.slice(0, 60)})`
    const value = line.slice(colon + 1).trim()
    rawHeaders.push(name, value)
    const key = name.toLowerCase()
    // Checked here, so that a reply that cannot be framed is a failure before any reply.
    if (key === 'content-length' && !CONTENT_LENGTH.test(value)) return `its Content-Length was not a length (${value.slice(0, 40)})`
    const had = headers[key]
    if (key === 'set-cookie') headers[key] = [...((had as string[] | undefined) ?? []), value]
    else if (had === undefined) headers[key] = value
    else if (key === 'content-length') {
      if (had !== value) return 'its reply had two different Content-Lengths'
    } else if (!SINGLE_VALUED.has(key)) headers[key] = `${had as string}, ${value}`
  }
  return { http10: status[1] === '0', statusCode: Number(status[2]), rawHeaders, headers }
}

/** The line from `start` to the LF at `end` (-1: the text's end), without a CR before the LF. */
function lineOf(text: string, start: number, end: number): string {
  const stop = end === -1 ? text.length : end
  return text.slice(start, stop > start && text.charCodeAt(stop - 1) === 0x0d ? stop - 1 : stop)
}

/** Fields of which a repeat is dropped (the first stands), as Node's client treats them. */
const SINGLE_VALUED = new Set(['content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization', 'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires'])
