import type { IncomingHttpHeaders } from 'node:http'

/** A reply's status line and header fields. */
export interface ReplyHead {
  statusCode: number
  /** Names and values in the order sent, names as written: what capture records. */
  rawHeaders: string[]
  fields: ReplyFields
}

/**
 * The fields read on every reply (its framing, its connection's reuse, its body's type), gathered
 * while the head is parsed, each as Node's `IncomingHttpHeaders` holds it: a repeated list field
 * joined with `, `, the first of a single-valued one. The other fields are read from `rawHeaders`
 * only when asked for (`headersOf`): an object keyed by every name a server sends was a third to
 * a half of the head's parse, on every reply, for fields nothing on the request's path reads.
 */
export interface ReplyFields {
  contentLength: string | undefined
  contentType: string | undefined
  transferEncoding: string | undefined
  connection: string | undefined
  keepAlive: string | undefined
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
    const { fields } = head
    const connection = headerTokens(fields.connection)
    this.keepAlive = head.http10 ? connection.includes('keep-alive') : !connection.includes('close')
    const transferEncoding = headerTokens(fields.transferEncoding)
    const contentLength = fields.contentLength
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

/** A list field's tokens, trimmed and lower-cased, empty ones dropped. */
function headerTokens(value: string | undefined): readonly string[] {
  if (value === undefined) return NO_TOKENS
  if (!value.includes(',')) {
    // One token, as nearly every reply sends `Connection` and `Transfer-Encoding`.
    const token = value.trim().toLowerCase()
    return token === '' ? NO_TOKENS : [token]
  }
  return value
    .split(',')
    .map((token) => token.trim().toLowerCase())
    .filter((token) => token !== '')
}

/**
 * The head's text (status line and fields, without the blank line), or why it is not HTTP/1.x.
 * It is read with character tests rather than regular expressions: a head is parsed once per
 * reply, on a path that runs with little of it in the processor's caches.
 */
function parseHead(text: string): (ReplyHead & { http10: boolean }) | string {
  // Lines end at LF, a CR before it dropped; walked by index rather than split.
  let lineEnd = text.indexOf('\n')
  const statusLine = lineOf(text, 0, lineEnd)
  const statusCode = statusCodeOf(statusLine)
  if (statusCode === undefined) return `its reply did not start with an HTTP/1.x status line (${statusLine.slice(0, 60)})`
  const rawHeaders: string[] = []
  const fields: ReplyFields = { contentLength: undefined, contentType: undefined, transferEncoding: undefined, connection: undefined, keepAlive: undefined }
  while (lineEnd !== -1) {
    const start = lineEnd + 1
    lineEnd = text.indexOf('\n', start)
    const line = lineOf(text, start, lineEnd)
    const colon = line.indexOf(':')
    if (!isToken(line, colon)) return `its reply had a malformed header line (${line.slice(0, 60)})`
    const name = line.slice(0, colon)
    const value = line.slice(colon + 1).trim()
    rawHeaders.push(name, value)
    // Checked here, so that a reply that cannot be framed is a failure before any reply.
    const refusal = gatherField(fields, name, value)
    if (refusal !== undefined) return refusal
  }
  return { http10: statusLine.charCodeAt(HTTP_1_DOT.length) === DIGIT_0, statusCode, rawHeaders, fields }
}

/** One field into `fields` if it is one of theirs (names compared by length first, then in lower case); why it cannot frame a reply, if it cannot. */
function gatherField(fields: ReplyFields, name: string, value: string): string | undefined {
  switch (name.length) {
    case CONTENT_LENGTH.length: {
      if (name.toLowerCase() !== CONTENT_LENGTH) return undefined
      if (!isLength(value)) return `its Content-Length was not a length (${value.slice(0, 40)})`
      if (fields.contentLength !== undefined && fields.contentLength !== value) return 'its reply had two different Content-Lengths'
      fields.contentLength = value
      return undefined
    }
    case CONTENT_TYPE.length:
      if (fields.contentType === undefined && name.toLowerCase() === CONTENT_TYPE) fields.contentType = value
      return undefined
    case TRANSFER_ENCODING.length:
      if (name.toLowerCase() === TRANSFER_ENCODING) fields.transferEncoding = joined(fields.transferEncoding, value)
      return undefined
    // `Keep-Alive` is as long as `Connection`.
    case CONNECTION.length: {
      const lower = name.toLowerCase()
      if (lower === CONNECTION) fields.connection = joined(fields.connection, value)
      else if (lower === KEEP_ALIVE) fields.keepAlive = joined(fields.keepAlive, value)
      return undefined
    }
    default:
      return undefined
  }
}

const CONTENT_LENGTH = 'content-length'
const CONTENT_TYPE = 'content-type'
const TRANSFER_ENCODING = 'transfer-encoding'
const CONNECTION = 'connection'
const KEEP_ALIVE = 'keep-alive'

const joined = (had: string | undefined, value: string): string => (had === undefined ? value : `${had}, ${value}`)

const HTTP_1_DOT = 'HTTP/1.'
/** Where in a status line the code's three digits begin (after `HTTP/1.x `), and end. */
const STATUS_CODE_AT = HTTP_1_DOT.length + 2
const STATUS_CODE_END = STATUS_CODE_AT + 3
const DIGIT_0 = 0x30
const DIGIT_9 = 0x39
const SPACE = 0x20

/** `HTTP/1.0` or `HTTP/1.1`, a space, three digits, then the line's end or a space and a reason without CR: the status code. */
function statusCodeOf(line: string): number | undefined {
  const minor = line.charCodeAt(HTTP_1_DOT.length)
  if (!line.startsWith(HTTP_1_DOT) || (minor !== DIGIT_0 && minor !== DIGIT_0 + 1) || line.charCodeAt(STATUS_CODE_AT - 1) !== SPACE) return undefined
  let code = 0
  for (let at = STATUS_CODE_AT; at < STATUS_CODE_END; at++) {
    const digit = line.charCodeAt(at)
    if (!(digit >= DIGIT_0 && digit <= DIGIT_9)) return undefined
    code = code * 10 + digit - DIGIT_0
  }
  if (line.length > STATUS_CODE_END && (line.charCodeAt(STATUS_CODE_END) !== SPACE || line.indexOf('\r', STATUS_CODE_END) !== -1)) return undefined
  return code
}

/** Whether `line` up to `end` is an HTTP token (a field's name): one or more of its characters. */
function isToken(line: string, end: number): boolean {
  if (end <= 0) return false
  for (let at = 0; at < end; at++) {
    const code = line.charCodeAt(at)
    if (code >= TOKEN_CHARACTERS.length || TOKEN_CHARACTERS[code] === 0) return false
  }
  return true
}

/** 1 at the codes of the characters a token may hold (RFC 9110's `tchar`). */
const TOKEN_CHARACTERS = new Uint8Array(128)
for (const character of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TOKEN_CHARACTERS[character.charCodeAt(0)] = 1

/** Decimal digits only, 1 to 15 of them (within a double's exact integers). */
function isLength(value: string): boolean {
  if (value.length === 0 || value.length > 15) return false
  for (let at = 0; at < value.length; at++) {
    const digit = value.charCodeAt(at)
    if (!(digit >= DIGIT_0 && digit <= DIGIT_9)) return false
  }
  return true
}

/** Every field of a reply, as Node's client presents them: lower-cased names; repeated fields joined with `, `, except `set-cookie` (a list). */
export function headersOf(rawHeaders: readonly string[]): IncomingHttpHeaders {
  // No prototype: a field named `constructor` or `__proto__` is a field like any other.
  const headers = Object.create(null) as IncomingHttpHeaders
  for (let at = 0; at + 1 < rawHeaders.length; at += 2) {
    const key = rawHeaders[at]!.toLowerCase()
    const value = rawHeaders[at + 1]!
    const had = headers[key]
    if (key === 'set-cookie') headers[key] = [...((had as string[] | undefined) ?? []), value]
    else if (had === undefined) headers[key] = value
    else if (!SINGLE_VALUED.has(key)) headers[key] = `${had as string}, ${value}`
  }
  return headers
}

/** The line from `start` to the LF at `end` (-1: the text's end), without a CR before the LF. */
function lineOf(text: string, start: number, end: number): string {
  const stop = end === -1 ? text.length : end
  return text.slice(start, stop > start && text.charCodeAt(stop - 1) === 0x0d ? stop - 1 : stop)
}

/** Fields of which a repeat is dropped (the first stands), as Node's client treats them. */
const SINGLE_VALUED = new Set(['content-type', 'content-length', 'user-agent', 'referer', 'host', 'authorization', 'proxy-authorization', 'if-modified-since', 'if-unmodified-since', 'from', 'location', 'max-forwards', 'retry-after', 'etag', 'last-modified', 'server', 'age', 'expires'])
