// One request sent from the playground, recorded as it happens: the response headers, every
// frame with its arrival time, and how it ended. Frames are folded into the parsed view as they
// come (O(1) each), and subscribers are told at most every FLUSH_MS, so a fast stream of
// thousands of frames costs a few renders per second, not one per frame.
import type { StopGenerationResponse } from '../../../shared/api/chat-response'
import { MortarHeader } from '../../../shared/api/headers'
import { assembleCompletion, ReplyAssembler, type AssembledReply } from '../logic/inspector/assemble-reply'
import {
  exchangeOutcome,
  headerValue,
  isEventStream,
  type ExchangeEndReason,
  type ExchangeOutcome,
  type RecordedExchange,
  type RecordedRequest,
} from '../logic/inspector/exchange'
import { StreamFrameRecorder, type StreamFrame } from '../logic/inspector/stream-frames'
import { completionBodySchema } from '../logic/inspector/reply-bodies'
import type { GatewayClient } from './gateway-client'
import { errorMessage } from '../logic/error-message'

const FLUSH_MS = 50

export type StopState =
  | { kind: 'idle' }
  | { kind: 'requesting' }
  | { kind: 'answered'; status: number; body: StopGenerationResponse }
  | { kind: 'failed'; message: string }

/** An immutable view of the run for React; `frames` is shared and only ever appended to. */
export interface ExchangeSnapshot {
  exchange: RecordedExchange
  frames: readonly StreamFrame[]
  frameCount: number
  reply: AssembledReply
  outcome: ExchangeOutcome
  stop: StopState
  /** The gateway's completion ID (X-Mortar-Request-Id), once the headers are in. */
  requestId: string | null
}

/** What a run needs of the gateway client: the endpoint's URL, the chat request and the stop call. */
export type ExchangeClient = Pick<GatewayClient, 'url' | 'postChat' | 'stopGeneration'>

let runCounter = 0

export class ExchangeRun {
  readonly exchange: RecordedExchange
  private readonly recorder = new StreamFrameRecorder()
  private readonly assembler = new ReplyAssembler()
  private readonly controller = new AbortController()
  private readonly listeners = new Set<() => void>()
  private completion: AssembledReply | null = null
  private stopState: StopState = { kind: 'idle' }
  private started = 0
  private timer: ReturnType<typeof setTimeout> | undefined
  private current: ExchangeSnapshot

  constructor(
    private readonly client: ExchangeClient,
    request: Omit<RecordedRequest, 'url'>,
  ) {
    runCounter += 1
    this.exchange = {
      id: `run-${runCounter}`,
      request: { ...request, url: client.url('/v1/chat/completions') },
      sentAt: Date.now(),
      response: null,
      frames: [],
      bodyText: null,
      end: null,
      stopRequested: false,
    }
    this.current = this.makeSnapshot()
  }

  get id(): string {
    return this.exchange.id
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  snapshot = (): ExchangeSnapshot => this.current

  /** Milliseconds since the request was sent, on the monotonic clock. */
  elapsed(): number {
    return performance.now() - this.started
  }

  async send(): Promise<void> {
    this.started = performance.now()
    this.exchange.sentAt = Date.now()
    this.notify(true)
    let response: Response
    try {
      response = await this.client.postChat(this.exchange.request.body, this.exchange.request.headers, this.controller.signal)
    } catch (error) {
      this.finish(this.controller.signal.aborted ? 'client_aborted' : 'network_error', error)
      return
    }
    this.exchange.response = { status: response.status, headers: [...response.headers], at: this.elapsed() }
    this.notify(true)
    try {
      if (!isEventStream(this.exchange.response) || response.body === null) {
        await this.readWhole(response)
      } else {
        await this.readStream(response.body)
      }
      this.finish('eof')
    } catch (error) {
      this.finish(this.controller.signal.aborted ? 'client_aborted' : 'network_error', error)
    }
  }

  /** Hang up, as a client that goes away would: the gateway then stops the generation itself. */
  disconnect(): void {
    this.controller.abort()
  }

  /** Ask the gateway to stop the generation (POST /v1/generations/{id}/stop). */
  async stop(): Promise<void> {
    const id = this.current.requestId
    if (id === null) {
      // No headers yet, so no ID to stop: hanging up stops it just as well.
      this.disconnect()
      return
    }
    this.exchange.stopRequested = true
    this.stopState = { kind: 'requesting' }
    this.notify(true)
    try {
      const answer = await this.client.stopGeneration(id)
      this.stopState = { kind: 'answered', ...answer }
    } catch (error) {
      this.stopState = { kind: 'failed', message: errorMessage(error) }
    }
    this.notify(true)
  }

  private async readStream(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.getReader()
    try {
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        this.addFrames(this.recorder.push(value, this.elapsed()))
      }
    } finally {
      reader.releaseLock()
    }
    this.addFrames(this.recorder.end(this.elapsed()))
  }

  private async readWhole(response: Response): Promise<void> {
    const text = await response.text()
    this.exchange.bodyText = text
    if (response.ok) {
      try {
        const completion = completionBodySchema.safeParse(JSON.parse(text))
        this.completion = completion.success ? assembleCompletion(completion.data) : null
      } catch {
        this.completion = null
      }
    }
  }

  private addFrames(frames: StreamFrame[]): void {
    if (frames.length === 0) return
    for (const frame of frames) {
      this.exchange.frames.push(frame)
      this.assembler.add(frame)
    }
    this.notify(false)
  }

  private finish(reason: ExchangeEndReason, error?: unknown): void {
    if (this.exchange.end !== null) return
    const message = error === undefined ? undefined : errorMessage(error)
    this.exchange.end = { at: this.elapsed(), reason, ...(message !== undefined ? { message } : {}) }
    this.notify(true)
  }

  private makeSnapshot(): ExchangeSnapshot {
    const reply = this.completion ?? this.assembler.view()
    const exchange = { ...this.exchange }
    return {
      exchange,
      frames: this.exchange.frames,
      frameCount: this.exchange.frames.length,
      reply,
      outcome: exchangeOutcome(exchange, reply),
      stop: this.stopState,
      requestId: headerValue(this.exchange.response?.headers ?? [], MortarHeader.requestId) ?? null,
    }
  }

  private notify(now: boolean): void {
    if (now) {
      clearTimeout(this.timer)
      this.timer = undefined
      this.flush()
      return
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined
      this.flush()
    }, FLUSH_MS)
  }

  private flush(): void {
    this.current = this.makeSnapshot()
    for (const listener of this.listeners) listener()
  }
}
