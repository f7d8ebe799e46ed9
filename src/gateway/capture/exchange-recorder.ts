import type { ByteChunks, SplicedJson } from '../http/json-chunks'
import { asciiText } from '../http/decode-in-pieces'
import { receivedUrlOf } from '../http/v1-aliases'
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { CapturedError, Exchange } from '../../shared/api/traffic'
import type { Principal, RefusedKey } from '../auth/key-store'
import type { UpstreamObserver } from '../backends/model-backend'
import type { CompletionRecord } from '../pipeline/completion-context'
import { readStream } from '../http/read-stream'
import { randomHex } from '../random-id'
import { FrameLog, type RecordedFrame } from './frame-log'
import { bytesHoldSecret } from './redact-credentials'
import { decodedSize } from './truncate-exchange'
import type { ContinuedBytes } from '../http/known-beginnings'

/** What the chat-completions route decided, once it decided it. */
export interface CompletionFacts {
  model: string
  deployment: string
  session: string
  stream: boolean
}

/** How the generation ended. */
export interface GenerationFacts {
  record: CompletionRecord
  error: CapturedError | null
}

/**
 * The generation's end as the recorder keeps it: its facts, or, when they would cost something
 * nobody may read (an estimate counts the prompt's tokens), a function that makes them when the
 * record is built. Facts are preferred: a function holds everything its scope reached, and V8's
 * young collections then find every request's objects alive.
 */
export type GenerationEnd = GenerationFacts | (() => GenerationFacts)

/** The conversation with a model server, as the backend reported it. */
export interface UpstreamRecording {
  replica: string
  /** The body sent, or a function that makes its text (read it with `sentBody()`). */
  body: string | (() => string)
  /**
   * The body's bytes, when the backend handed them over (their length is its UTF-8 size), kept to
   * the end so that the store copies them rather than encoding the text — which, for a spliced
   * body (a concatenation), would first copy it whole. They are slices of the client's body, which
   * the record keeps anyway, and the few bytes written anew.
   */
  bodyChunks: Buffer | ByteChunks | undefined
  /**
   * Whether those bytes hold a secret the client sent as a credential, once searched (read it
   * with `sentBodyHoldsSecret()`): searched when the record is built, not before the body is sent,
   * where a search of a prompt of 128 KB held its request back.
   */
  bodyHoldsSecret?: boolean
  status: number | null
  rawHeaders: readonly string[]
  frames: FrameLog
  responseBody: string | null
  /** The bytes `responseBody` was decoded from, when the backend had them. */
  responseBytes?: Buffer | undefined
}

export interface RecorderHooks {
  /** The per-exchange budget (frames beyond it are dropped from the middle as the stream runs). */
  maxExchangeBytes(): number
  /** The caller is known (the key check ran), or the response began before it was: announce it. */
  started(recorder: ExchangeRecorder): void
  /** A fact a summary shows arrived while it runs: model and session, the status, the first token, the model server's answer. */
  changed(recorder: ExchangeRecorder): void
  /** The response ended or the connection closed: the record is complete. */
  ended(recorder: ExchangeRecorder): void
}

/** Someone watching one running exchange (GET /v1/traffic/exchanges/{id}/live). */
export interface ExchangeWatcher {
  /** A frame written to the client (`response`) or a piece read from the model server (`upstream`). */
  frame(side: 'response' | 'upstream', frame: RecordedFrame): void
  changed(): void
  /** The final record. */
  ended(exchange: Exchange): void
}

const recorders = new WeakMap<IncomingMessage, ExchangeRecorder>()

/** The recorder of a request being captured; undefined when capture is off or skips this path. */
export function recorderOf(req: IncomingMessage): ExchangeRecorder | undefined {
  return recorders.get(req)
}

type Write = (chunk: unknown, ...rest: unknown[]) => boolean
type End = (chunk?: unknown, ...rest: unknown[]) => ServerResponse

/**
 * Records one request and its response as they happen. It sits on the response itself — every
 * route's output passes `res.write`/`res.end`, including the error handler's envelopes — and keeps
 * the very strings written (SSE frames are written one per call), with their times. The stages
 * add what only they know (the caller, the request body, the model, the generation's end); the
 * record is assembled from all of it once, when the response closes (build-exchange.ts).
 */
export class ExchangeRecorder implements UpstreamObserver {
  readonly id = 'exch_' + randomHex(12)
  readonly startedAt = Date.now()
  readonly t0 = performance.now()
  frames: FrameLog
  /** The request's body: its bytes as received, replaced by their UTF-8 text once a JSON body is decoded (unless they are ASCII: `requestAscii`). */
  requestBody: Buffer | string | undefined
  /** The body was longer than what is kept of a body no route read (the rest went unread). */
  requestBodyCut = false
  /** Bytes of that body known to be left unread (from its Content-Length). */
  requestBodyUnread = 0
  /** The UTF-8 size of `requestBody` once it is text, when the bytes it was decoded from tell it. */
  requestBytes: number | undefined
  /** `requestBody` is bytes the body reader found to be ASCII (the record decodes them, if the reader did not). */
  requestAscii = false
  /** How those bytes go on from an earlier body of the same scope (http/known-beginnings.ts), when the reader continued one. */
  requestContinues: ContinuedBytes | undefined
  private decodedRequest: { from: Buffer; text: string } | undefined
  principal: Principal | undefined
  /** The expired or revoked key that was refused, by ID and name. */
  refusedKey: RefusedKey | undefined
  /** The error the gateway answered with, before its endpoint's envelope was written. */
  refusal: CapturedError | undefined
  completion: CompletionFacts | undefined
  generation: GenerationEnd | undefined
  modelBody: (() => string) | undefined
  upstream: UpstreamRecording | undefined
  /**
   * The JSON reply, when it was written partly from bytes at hand: its text is made of the pieces
   * it was written from, rather than decoded from the frames, and its bytes are those sent.
   */
  replyJson: SplicedJson | undefined
  ttftMs: number | null = null
  endedAt: number | null = null
  /** Undefined unless someone follows this exchange: each frame costs one check otherwise. */
  watchers: Set<ExchangeWatcher> | undefined
  private announced = false
  /** Reading the body of a request no route read; the record waits for it. */
  private bodyRead: Promise<void> | undefined
  /**
   * A route decided a generation and has not finished: a client that leaves first closes the
   * response before the generation's facts are known (its prompt may still be being counted for
   * a usage estimate), so the record waits for them, or for the route to end without them.
   */
  private generationDue = false
  private closedWhileDue = false
  private responding = false
  /**
   * Path and query as requested, read when the request arrives: Express rewrites `req.url` to
   * the part below a router's mount point (`/models` under `/v1`) before the record is built.
   */
  readonly url: string
  /** The endpoint's path, without the query, in its `/v1` spelling (a bare-host client's `/models` is `/v1/models`). */
  readonly endpoint: string

  constructor(
    readonly req: IncomingMessage,
    readonly res: ServerResponse,
    private readonly hooks: RecorderHooks,
  ) {
    // Frames of both sides share the exchange's budget; bodies are cut to fit when it is built.
    this.frames = new FrameLog(hooks.maxExchangeBytes() / 2)
    this.url = receivedUrlOf(req)
    const routed = req.url ?? ''
    const query = routed.indexOf('?')
    this.endpoint = query === -1 ? routed : routed.slice(0, query)
    recorders.set(req, this)
    const write = res.write as Write
    const end = res.end as End
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      this.record(chunk)
      return write.call(res, chunk, ...rest)
    }) as ServerResponse['write']
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') this.record(chunk)
      return end.call(res, chunk, ...rest)
    }) as ServerResponse['end']
    res.once('close', () => {
      this.endedAt = performance.now()
      if (this.generationDue) this.closedWhileDue = true
      else if (this.bodyRead === undefined) this.end()
      else void this.bodyRead.then(() => this.end())
    })
  }

  /** How the generation ended, once it did (its facts are read when the record is built). */
  generationFacts(): GenerationFacts | undefined {
    const { generation } = this
    return typeof generation === 'function' ? generation() : generation
  }

  /** Milliseconds since the request arrived, to a hundredth. */
  now(): number {
    return Math.round((performance.now() - this.t0) * 100) / 100
  }

  /** The key check ran and let it in (a refusal is recorded with the response). */
  identified(principal: Principal): void {
    this.principal = principal
    this.announce()
  }

  /** The request is answered with this error (the error handler, before it writes the envelope). */
  refused(error: { message: string; type: string; param: string | null; code: string }): void {
    this.refusal = { message: error.message, type: error.type, param: error.param, code: error.code }
  }

  /** The chat-completions route decided the model and session (its response headers are set). */
  decided(facts: CompletionFacts, modelBody: (() => string) | undefined): void {
    this.completion = facts
    this.modelBody = modelBody
    this.generationDue = true
    this.changed()
  }

  /** The generation ended: its facts, or a function that makes them when the record is built. */
  generationEnded(generation: GenerationEnd): void {
    this.generation = generation
    this.routeEnded()
  }

  /** The route that decided a generation is done, whether or not the generation's facts came. */
  routeEnded(): void {
    if (!this.generationDue) return
    this.generationDue = false
    if (this.closedWhileDue) this.end()
  }

  firstToken(): void {
    if (this.ttftMs !== null) return
    this.ttftMs = this.now()
    this.changed()
  }

  /**
   * The body reader decoded the bytes it read: the text is kept, and its size if the bytes tell it.
   * `ascii`: the reader found the bytes ASCII. Then the bytes are kept as well, as for a body left
   * undecoded, so that the record is searched and stored from them (a copy, not an encoding, and a
   * body sent spliced from them is stored as pieces of them), and the text is not decoded again.
   */
  bodyDecoded(text: string, raw: Buffer, ascii = false): void {
    if (!ascii) {
      this.requestBody = text
      this.requestBytes = decodedSize(raw)
      return
    }
    this.bodyUndecoded(raw)
    this.decodedRequest = { from: raw, text }
  }

  /**
   * The request's body as text: decoded once (a record is built again for each live update), in
   * pieces when the reader left ASCII bytes undecoded, so that no large string is made.
   */
  requestText(): string {
    const body = this.requestBody
    if (body === undefined) return ''
    if (typeof body === 'string') return body
    if (this.decodedRequest?.from !== body) this.decodedRequest = { from: body, text: this.requestAscii ? asciiText(body) : body.toString('utf8') }
    return this.decodedRequest.text
  }

  /** The body sent to the model server, its text made the first time it is asked for. */
  sentBody(): string | undefined {
    const { upstream } = this
    if (upstream === undefined) return undefined
    // A plain property, not a getter: an accessor kept a closure (and with it the request's
    // objects) reachable past young collections.
    if (typeof upstream.body !== 'string') upstream.body = upstream.body()
    return upstream.body
  }

  /**
   * The body reader found the bytes ASCII (and parsed them without decoding them, unless
   * `bodyDecoded` calls this): they are kept as they are, with how they go on from an earlier
   * body's (`continued`).
   */
  bodyUndecoded(raw: Buffer, continued?: ContinuedBytes): void {
    this.requestBody = raw
    this.requestBytes = raw.length
    this.requestAscii = true
    this.requestContinues = continued
  }

  sent(replica: string, body: string | (() => string), bytes?: Buffer | ByteChunks): void {
    // A retry (say, without stream_options) replaces what was sent before.
    this.upstream = {
      replica,
      body,
      bodyChunks: bytes,
      status: null,
      rawHeaders: [],
      frames: new FrameLog(this.hooks.maxExchangeBytes() / 2),
      responseBody: null,
    }
    this.changed()
  }

  /**
   * Whether the bytes sent hold one of `secrets` (those the client sent as credentials); undefined
   * when no bytes were handed over. Searched in the bytes, once: searching the text would first
   * copy a spliced body whole. `clean`: the client's body, when it was found to hold none — the
   * pieces spliced from it are searched only where they meet the gateway's own bytes.
   */
  sentBodyHoldsSecret(secrets: readonly string[], clean: Buffer | undefined): boolean | undefined {
    const { upstream } = this
    if (upstream?.bodyChunks === undefined) return undefined
    upstream.bodyHoldsSecret ??= bytesHoldSecret(upstream.bodyChunks, secrets, { clean })
    return upstream.bodyHoldsSecret
  }

  responded(status: number, rawHeaders: readonly string[]): void {
    if (this.upstream === undefined) return
    this.upstream.status = status
    this.upstream.rawHeaders = rawHeaders
    this.changed()
  }

  received(bytes: Buffer): void {
    if (this.upstream === undefined) return
    const frame = this.upstream.frames.push(bytes, this.now())
    if (this.watchers !== undefined) for (const watcher of this.watchers) watcher.frame('upstream', frame)
  }

  receivedBody(text: string, bytes?: Buffer): void {
    if (this.upstream === undefined) return
    this.upstream.responseBody = text
    this.upstream.responseBytes = bytes
  }

  private record(chunk: unknown): void {
    if (typeof chunk !== 'string' && !Buffer.isBuffer(chunk)) return
    const frame = this.frames.push(chunk, this.now())
    if (this.watchers !== undefined) for (const watcher of this.watchers) watcher.frame('response', frame)
    // The first bytes carry the status and headers.
    if (this.responding) return
    this.responding = true
    this.readUnreadBody()
    if (this.announced) this.changed()
    else this.announce()
  }

  /**
   * A request answered without its body being read — refused by the key check, an unknown route,
   * a wrong method, the Host or CORS check — still shows what its client sent: the body is read
   * here, once the answer has begun (off the request path), up to what a record keeps of a body
   * (a tenth of the per-exchange limit); the rest is discarded unread, as Node does with an
   * unread body, and the record says it was cut. A 413 closes the connection instead.
   */
  private readUnreadBody(): void {
    const { req, res } = this
    if (this.requestBody !== undefined || res.statusCode === 413 || req.readableEnded || !declaresBody(req)) return
    const cap = Math.floor(this.hooks.maxExchangeBytes() / 10)
    this.bodyRead = readStream(req, cap).then(
      ({ bytes, overflowed }) => {
        this.requestBody = bytes
        if (!overflowed) return
        this.requestBodyCut = true
        const declared = Number(req.headers['content-length'])
        if (Number.isFinite(declared)) this.requestBodyUnread = Math.max(0, declared - bytes.length)
        req.resume()
      },
      // The client left before its body ended: what it sent is not known whole.
      () => undefined,
    )
  }

  /**
   * The record is complete: hand it over, then leave the recorders' map. A `WeakMap` entry is
   * strong for V8's young collections (its value, the recorder, reaches its key, the request), so
   * an entry left to the next full collection keeps every request's objects alive through each
   * young one, and scavenges copy and promote them all.
   */
  private end(): void {
    this.hooks.ended(this)
    recorders.delete(this.req)
    this.letGo()
  }

  /**
   * The record is handed over: what it was built from is dropped. The response keeps this
   * recorder (its `write`, `end` and `close` handlers) and stays reachable for a while after it
   * closes, so anything held here past the end is copied by every young collection until then:
   * in streams of 32 KB prompts, the request's texts and frames held here were more than half of
   * what young collections found alive. New arrays and objects, not emptied ones: the record
   * handed over shares them.
   */
  private letGo(): void {
    this.requestBody = undefined
    this.requestContinues = undefined
    this.decodedRequest = undefined
    this.upstream = undefined
    this.replyJson = undefined
    this.modelBody = undefined
    this.generation = undefined
    this.frames = new FrameLog(0)
  }

  private announce(): void {
    if (this.announced) return
    this.announced = true
    this.hooks.started(this)
  }

  private changed(): void {
    if (!this.announced || this.endedAt !== null) return
    this.hooks.changed(this)
    if (this.watchers !== undefined) for (const watcher of this.watchers) watcher.changed()
  }
}

/** Whether a request says it has a body (a length above zero, or chunks). */
function declaresBody(req: IncomingMessage): boolean {
  if (req.headers['transfer-encoding'] !== undefined) return true
  const length = Number(req.headers['content-length'])
  return Number.isFinite(length) && length > 0
}
