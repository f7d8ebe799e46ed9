import type { IncomingHttpHeaders } from 'node:http'
import { connect, type Socket } from 'node:net'
import { Readable } from 'node:stream'
import type { ByteChunks } from '../../http/json-chunks'
import { headersOf, Http1ReplyParser, type ReplyFields, type ReplyHead } from './http1-reply-parser'

/** Where a plain-HTTP model server's endpoint is: worked out once per replica and path. */
export interface Http1Target {
  /** What to connect to (no brackets around an IPv6 address). */
  hostname: string
  port: number
  /** The Host header: the URL's host, with the port when it is not 80. */
  host: string
  /** The request target: path and query, as the URL encoded them. */
  path: string
  /** `Basic …` for credentials written in the server's URL. */
  basicAuth?: string
}

/** A request under way: destroyed on abort or timeout, which hangs up on the server. */
export interface SentRequest {
  destroy(): void
  /** Whether it went out on a connection that had carried an earlier request. */
  readonly reusedSocket: boolean
}

/** An error before or during a reply; `replyStarted`: some of the reply had come (the server had the request). */
export interface ReplyError extends NodeJS.ErrnoException {
  replyStarted?: boolean
}

/**
 * How long a connection may idle after a reply: the pool's limit, or less when the server's
 * `Keep-Alive: timeout=N` says it closes them sooner (a second before it does, as Node's agent).
 */
function idleLimit(keepAlive: string | undefined, poolIdleMs: number): number {
  const hint = keepAlive === undefined ? undefined : /(?:^|[,\s])timeout=(\d+)/i.exec(keepAlive)?.[1]
  return hint === undefined ? poolIdleMs : Math.min(poolIdleMs, Number(hint) * 1000 - 1000)
}

export interface SentCallbacks<Reply> {
  response(reply: Reply): void
  /** Anything before the reply's head: no answer. `code` names a network error (ECONNRESET…). */
  error(error: NodeJS.ErrnoException): void
}

/**
 * A model server's reply, read by the gateway's own HTTP/1.1 client: the fields of Node's
 * IncomingMessage that the upstream code reads, and its events (`data`, `end`, `error` — only when
 * someone listens, as Node's reply does — and `close`). Destroying it before its end hangs up on
 * the server.
 */
export class Http1Reply extends Readable {
  readonly statusCode: number
  readonly rawHeaders: string[]
  /** The fields read on every reply, gathered as the head was parsed. */
  readonly fields: ReplyFields
  private everyField: IncomingHttpHeaders | undefined
  /** Whether the whole body came: set before `end`. */
  complete = false

  constructor(
    head: ReplyHead,
    private exchange: Exchange | undefined,
  ) {
    super()
    this.statusCode = head.statusCode
    this.rawHeaders = head.rawHeaders
    this.fields = head.fields
  }

  /** Every field, as Node's reply presents them: made the first time something asks. */
  get headers(): IncomingHttpHeaders {
    return (this.everyField ??= headersOf(this.rawHeaders))
  }

  /**
   * The whole body, taken at once when it is all in and not yet read (a JSON reply usually comes
   * in one read): undefined when it is not, or is larger than `limit`, and it must be streamed.
   * A reply taken whole is spent: it emits no `end` (nobody reads it any more).
   */
  takeWhole(limit: number): Buffer | undefined {
    if (!this.complete || this.destroyed || this.readableLength > limit || this.readableDidRead) return undefined
    // The length asked for, explicitly: a flowing stream's read() gives only its first buffered piece.
    return this.readableLength === 0 ? Buffer.alloc(0) : (this.read(this.readableLength) as Buffer)
  }

  /** The body is all in: the connection is no longer this reply's. */
  detach(): void {
    this.exchange = undefined
  }

  override _read(): void {
    this.exchange?.resume()
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    if (!this.complete) this.exchange?.abandon()
    this.exchange = undefined
    // An error is emitted only to a listener, as Node's own reply does: a consumer that let go of
    // the reply must not meet an uncaught 'error'.
    callback(this.listenerCount('error') > 0 ? error : null)
  }
}

/**
 * Kept-alive connections to one model server's address. Idle ones are reused last-in-first-out
 * (the warmest, the least likely to have been closed), closed after `idleMs`, and do not keep the
 * process alive.
 */
class Origin {
  private readonly idle: Connection[] = []
  /** Idle connections beyond this many are closed rather than kept, as Node's agent keeps 256. */
  static readonly MAX_IDLE = 256

  constructor(
    readonly target: Pick<Http1Target, 'hostname' | 'port'>,
    readonly idleMs: number,
  ) {}

  take(): Connection | undefined {
    for (;;) {
      const connection = this.idle.pop()
      if (connection === undefined) return undefined
      if (connection.usable()) return connection
    }
  }

  open(): Connection {
    return new Connection(connect({ host: this.target.hostname, port: this.target.port, noDelay: true, keepAlive: true, keepAliveInitialDelay: 1000 }), this)
  }

  /** Whether the connection was kept (false: the pool is full). */
  park(connection: Connection): boolean {
    if (this.idle.length >= Origin.MAX_IDLE) return false
    this.idle.push(connection)
    return true
  }

  forget(connection: Connection): void {
    const at = this.idle.indexOf(connection)
    if (at !== -1) this.idle.splice(at, 1)
  }
}

/** One TCP connection to a model server, carrying one request at a time. */
class Connection {
  exchange: Exchange | undefined
  /** Whether it carried a request before the current one. */
  used = false
  private lastError: NodeJS.ErrnoException | undefined

  constructor(
    readonly socket: Socket,
    private readonly origin: Origin,
  ) {
    // Listeners for the connection's life, not per request: the exchange under way, if any, gets the events.
    socket.on('data', (chunk: Buffer) => {
      if (this.exchange !== undefined) this.exchange.data(chunk)
      else socket.destroy() // a server that speaks unasked: the connection is out of step
    })
    socket.on('end', () => this.exchange?.ended(undefined))
    socket.on('error', (error: NodeJS.ErrnoException) => {
      this.lastError = error
    })
    socket.on('close', () => {
      this.origin.forget(this)
      this.exchange?.ended(this.lastError)
    })
    socket.on('timeout', () => {
      if (this.exchange === undefined) socket.destroy()
    })
  }

  get idleMs(): number {
    return this.origin.idleMs
  }

  usable(): boolean {
    return !this.socket.destroyed && this.socket.writable && !this.socket.readableEnded
  }

  begin(exchange: Exchange): void {
    this.exchange = exchange
    if (this.used) {
      this.socket.setTimeout(0)
      this.socket.ref()
    }
  }

  /**
   * The reply ended: the connection goes back to the pool, or is closed. `idleMs`: how long it may
   * idle, the pool's limit or less when the server said it keeps connections for less.
   */
  release(reusable: boolean, idleMs: number): void {
    this.exchange = undefined
    this.used = true
    if (!reusable || idleMs <= 0 || !this.usable() || !this.origin.park(this)) return void this.socket.destroy()
    this.socket.resume()
    this.socket.setTimeout(idleMs)
    this.socket.unref()
  }
}

/** One request on one connection, from its bytes going out to its reply's end. */
class Exchange implements SentRequest {
  private reply: Http1Reply | undefined
  private done = false
  private readonly parser: Http1ReplyParser

  constructor(
    private readonly connection: Connection,
    readonly reusedSocket: boolean,
    private readonly callbacks: SentCallbacks<Http1Reply>,
  ) {
    this.parser = new Http1ReplyParser(
      {
        head: (head) => {
          this.reply = new Http1Reply(head, this)
          this.callbacks.response(this.reply)
        },
        body: (bytes) => {
          if (this.reply !== undefined && !this.reply.push(bytes)) this.connection.socket.pause()
        },
        end: (reusable) => {
          const reply = this.reply
          this.done = true
          this.connection.release(reusable, idleLimit(reply?.fields.keepAlive, this.connection.idleMs))
          if (reply === undefined) return
          reply.complete = true
          reply.detach()
          reply.push(null)
        },
        // A reply cut short is ECONNRESET, as Node names it; before any byte of it, it is what a
        // stale kept-alive connection does (`replyStarted` unset: the retry's condition).
        error: (message, cutShort) => this.fail(Object.assign(new Error(message), { code: cutShort ? 'ECONNRESET' : 'HPE_INVALID' })),
      },
      true,
    )
  }

  data(chunk: Buffer): void {
    if (!this.done) this.parser.push(chunk)
  }

  /** The server closed its side (`error`: how the connection broke, if it did). */
  ended(error: NodeJS.ErrnoException | undefined): void {
    if (this.done) return
    if (error !== undefined) return this.fail(error)
    this.parser.closed()
  }

  resume(): void {
    if (!this.done) this.connection.socket.resume()
  }

  /** The reply's reader let go of it before its end: the server is hung up on. */
  abandon(): void {
    if (this.done) return
    this.done = true
    this.connection.exchange = undefined
    this.connection.socket.destroy()
  }

  destroy(): void {
    this.reply?.destroy()
    this.abandon()
  }

  private fail(error: NodeJS.ErrnoException): void {
    if (this.done) return
    this.done = true
    this.connection.exchange = undefined
    this.connection.socket.destroy()
    if (this.parser.started) (error as ReplyError).replyStarted = true
    const { reply } = this
    if (reply === undefined) return this.callbacks.error(error)
    // On a later turn, as Node's client does: a reply that fails in the read that brought its head
    // has just been handed over, and its reader must get to listen before it is destroyed.
    setImmediate(() => reply.destroy(error))
  }
}

const origins = new Map<string, Origin>()

function originOf(target: Http1Target, idleMs: number): Origin {
  const key = `${target.hostname}\u0000${target.port}`
  let origin = origins.get(key)
  if (origin === undefined) origins.set(key, (origin = new Origin(target, idleMs)))
  return origin
}

/** What a field value may hold, written as latin1 (as Node checks it): no line breaks, no controls but tab. */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/

/** The request's head: its line, Host, the fields given (names and values checked), keep-alive. */
export function requestHead(method: string, target: Http1Target, headers: Record<string, string>): string {
  let head = `${method} ${target.path} HTTP/1.1\r\nHost: ${target.host}\r\n`
  for (const name in headers) {
    const value = headers[name]!
    if (!FIELD_NAME.test(name)) throw new TypeError(`Header name must be a valid HTTP token ["${name}"]`)
    if (!FIELD_VALUE.test(value)) throw new TypeError(`Invalid character in header content ["${name}"]`)
    head += `${name}: ${value}\r\n`
  }
  return head + 'Connection: keep-alive\r\n\r\n'
}

/**
 * Send one request — its head and body in one write — to a plain-HTTP model server, on a kept-alive
 * connection when one is idle (`pooled`) or on a new one (`fresh`), and call back with the reply
 * once its head is in, or with the error that came before any reply.
 */
export function sendHttp1(
  target: Http1Target,
  head: string,
  body: Buffer | ByteChunks,
  connection: 'pooled' | 'fresh',
  idleMs: number,
  callbacks: SentCallbacks<Http1Reply>,
): SentRequest {
  const origin = originOf(target, idleMs)
  const pooled = connection === 'pooled' ? origin.take() : undefined
  const carrier = pooled ?? origin.open()
  const exchange = new Exchange(carrier, pooled !== undefined, callbacks)
  carrier.begin(exchange)
  const { socket } = carrier
  socket.cork()
  socket.write(head, 'latin1')
  if (Buffer.isBuffer(body)) socket.write(body)
  else for (const chunk of body.chunks) socket.write(chunk)
  socket.uncork()
  return exchange
}
