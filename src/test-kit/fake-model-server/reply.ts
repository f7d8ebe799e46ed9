import type { ServerResponse } from 'node:http'
import type { FakeBehavior, RecordedRequest } from './behavior'
import type { Pacer } from './pacer'
import { SERVER_FAMILIES, type RawAnswer, type ReplyMeta, type ReplyPiece, type ServerFamily, type ToolCallPiece } from './server-families'

/** One request/response pair while it is in flight. */
export interface Exchange {
  record: RecordedRequest
  res: ServerResponse
  /** the behavior as it was when the request arrived */
  behavior: FakeBehavior
  pacer: Pacer
  /** the response's 'close' has fired: nothing more can be written */
  closed: boolean
  /** this server (die-mid-stream, kill, close) ended the connection, not the caller */
  closedByServer: boolean
  /** callbacks run once on close (cancel timers, wake waiters) */
  onClose: Set<() => void>
}

let completionCounter = 0

/** How many pieces a JSON reply keeps: max tokens / 4 (at least one) when honoured and asked for, else all. */
export function jsonPieceCount(behavior: FakeBehavior, maxTokens: unknown): number {
  return behavior.honourMaxTokens && typeof maxTokens === 'number' && Number.isInteger(maxTokens) && maxTokens > 0
    ? Math.max(1, Math.floor(maxTokens / 4))
    : behavior.deltas.length
}

/** The reply to one chat-completions request, as JSON or as SSE frames, in its family's shapes. */
export class Reply {
  readonly family: ServerFamily
  readonly meta: ReplyMeta
  readonly includeUsage: boolean
  private lastFlush: Promise<void> = Promise.resolve()

  /** How many pieces a JSON completion keeps (behavior.honourMaxTokens). */
  private readonly jsonPieces: number

  constructor(readonly exchange: Exchange, body: Record<string, unknown>) {
    const { behavior } = exchange
    this.jsonPieces = jsonPieceCount(behavior, body.max_tokens)
    this.family = SERVER_FAMILIES[behavior.family]
    this.meta = {
      id: this.family.completionId(++completionCounter),
      created: Math.floor(Date.now() / 1000),
      model: behavior.model ?? (typeof body.model === 'string' ? body.model : 'fake-model'),
    }
    const streamOptions = body.stream_options
    this.includeUsage =
      typeof streamOptions === 'object' && streamOptions !== null && 'include_usage' in streamOptions && streamOptions.include_usage === true
  }

  /** What the model generates, in order: reasoning, then tool-call pieces or content. */
  pieces(): ReplyPiece[] {
    const { behavior } = this.exchange
    const reasoning = behavior.reasoning.map((text): ReplyPiece => ({ kind: 'reasoning', text }))
    const answer =
      behavior.toolCallPieces !== null
        ? behavior.toolCallPieces.map((piece): ReplyPiece => ({ kind: 'tool', piece }))
        : behavior.deltas.map((text): ReplyPiece => ({ kind: 'content', text }))
    return [...reasoning, ...answer]
  }

  /** The JSON text of one piece's chunk. */
  pieceFrame(piece: ReplyPiece): string {
    return JSON.stringify(this.family.chunk(this.meta, this.family.pieceDelta(piece), null))
  }

  /** The role chunk, when the family sends one. */
  roleFrame(): string | undefined {
    const delta = this.family.roleDelta()
    return delta === null ? undefined : JSON.stringify(this.family.chunk(this.meta, delta, null))
  }

  /** The finish chunk and, when asked for and reported, the usage chunk. */
  closingFrames(): string[] {
    const { behavior } = this.exchange
    const frames = [JSON.stringify(this.family.chunk(this.meta, this.family.finishDelta(), behavior.finishReason))]
    if (this.includeUsage && behavior.usage !== null) frames.push(JSON.stringify(this.family.usageChunk(this.meta, behavior.usage)))
    return frames
  }

  /** The JSON text of every data event of a complete stream, without [DONE]. */
  frames(): string[] {
    const role = this.roleFrame()
    return [...(role !== undefined ? [role] : []), ...this.pieces().map((piece) => this.pieceFrame(piece)), ...this.closingFrames()]
  }

  completion(): Record<string, unknown> {
    const { behavior } = this.exchange
    const tools = behavior.toolCallPieces
    return this.family.completion(
      this.meta,
      {
        content: tools !== null ? null : behavior.deltas.slice(0, this.jsonPieces).join(''),
        reasoning: behavior.reasoning.length > 0 ? behavior.reasoning.join('') : null,
        toolCalls: tools !== null ? mergeToolCalls(tools) : null,
      },
      behavior.finishReason,
      behavior.usage,
    )
  }

  startStream(contentType = 'text/event-stream'): void {
    const { res, behavior } = this.exchange
    res.writeHead(200, {
      'content-type': contentType,
      'cache-control': 'no-cache',
      'x-fake-server': behavior.name,
    })
    res.flushHeaders()
  }

  /** Write one `data:` event; false when the exchange is over (caller gone). Waits out backpressure. */
  write(payload: string | undefined): Promise<boolean> {
    if (payload === undefined) return Promise.resolve(false)
    return this.writeRaw(`data: ${payload}\n\n`, true)
  }

  /** Write bytes as given (`isChunk`: they are a data event that counts in chunksSent). */
  async writeRaw(text: string, isChunk: boolean): Promise<boolean> {
    const { exchange } = this
    if (exchange.closed) return false
    let flushedNow!: () => void
    this.lastFlush = new Promise<void>((resolve) => (flushedNow = resolve))
    const accepted = exchange.res.write(text, () => flushedNow())
    if (isChunk) exchange.record.chunksSent++
    if (!accepted) await waitFor(exchange, (wake) => exchange.res.once('drain', wake), (wake) => exchange.res.off('drain', wake))
    return !exchange.closed
  }

  /**
   * Frames on the stream's schedule: frame i at start + i × deltaDelayMs (the first at once), each
   * written in the pacer's first tick at or after its time; false if the caller left.
   */
  async writePaced(frames: Iterable<string>): Promise<boolean> {
    const { exchange } = this
    const interval = exchange.behavior.deltaDelayMs
    const start = performance.now()
    let i = 0
    for (const frame of frames) {
      if (i > 0) await (interval > 0 ? sleepUntil(exchange, start + i * interval) : pause(exchange, 0))
      if (!(await this.write(frame))) return false
      i++
    }
    return true
  }

  /** A complete stream after the headers: role chunk, the paced pieces, then finish and usage. */
  async streamAll(): Promise<boolean> {
    const role = this.roleFrame()
    if (role !== undefined && !(await this.write(role))) return false
    if (!(await this.writePaced(this.pieceFrames()))) return false
    for (const frame of this.closingFrames()) if (!(await this.write(frame))) return false
    return true
  }

  /** Each piece's frame, made when it is due rather than all at a request's arrival. */
  private *pieceFrames(): Generator<string> {
    for (const piece of this.pieces()) yield this.pieceFrame(piece)
  }

  /** Resolves once everything written so far has been handed to the kernel. */
  flushed(): Promise<void> {
    const { exchange, lastFlush } = this
    return waitFor(exchange, (wake) => void lastFlush.then(wake), () => {})
  }

  done(): void {
    if (this.exchange.closed) return
    this.exchange.res.end('data: [DONE]\n\n')
  }

  end(): void {
    if (this.exchange.closed) return
    this.exchange.res.end()
  }

  /**
   * Reset the connection (TCP RST), as a crashing server's kernel would. First everything written
   * is flushed and the event loop turns twice, so a reader in this process has taken the data off
   * its socket: on Linux an RST that lands while data is still unread reads as a plain EOF, and the
   * caller would see a truncated body instead of ECONNRESET. (A reader in another process, or one
   * that is not reading, may still see that EOF; either way the body is cut without its end.)
   */
  async reset(): Promise<void> {
    const { exchange } = this
    await this.flushed()
    await pause(exchange, 0)
    await pause(exchange, 0)
    if (exchange.closed) return
    exchange.closedByServer = true
    const socket = exchange.res.socket
    if (socket !== null) socket.resetAndDestroy()
    else exchange.res.destroy()
  }
}

/** The whole message's tool calls, as a server that streams these pieces answers without stream. */
function mergeToolCalls(pieces: ToolCallPiece[]): Array<Record<string, unknown>> {
  const merged = new Map<number, { id?: string; name?: string; arguments: string }>()
  for (const piece of pieces) {
    let call = merged.get(piece.index)
    if (call === undefined) merged.set(piece.index, (call = { arguments: '' }))
    if (piece.id !== undefined) call.id = piece.id
    if (piece.function.name !== undefined) call.name = piece.function.name
    call.arguments += piece.function.arguments
  }
  return [...merged.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, call]) => ({
      ...(call.id !== undefined ? { id: call.id } : {}),
      type: 'function',
      function: { ...(call.name !== undefined ? { name: call.name } : {}), arguments: call.arguments },
    }))
}

export function sendAnswer(exchange: Exchange, answer: RawAnswer): void {
  if (exchange.closed) return
  exchange.res.writeHead(answer.status, {
    'content-type': answer.contentType,
    'content-length': Buffer.byteLength(answer.body),
    'x-fake-server': exchange.behavior.name,
  })
  exchange.res.end(answer.body)
}

export function sendJson(exchange: Exchange, status: number, payload: unknown): void {
  sendAnswer(exchange, { status, contentType: 'application/json', body: JSON.stringify(payload) })
}

/**
 * Wait for an event registered by `arm`, or for the exchange to close, whichever is first;
 * `disarm` undoes `arm` so nothing is left behind.
 */
function waitFor(exchange: Exchange, arm: (wake: () => void) => void, disarm: (wake: () => void) => void): Promise<void> {
  if (exchange.closed) return Promise.resolve()
  return new Promise<void>((resolve) => {
    const wake = (): void => {
      exchange.onClose.delete(wake)
      disarm(wake)
      resolve()
    }
    exchange.onClose.add(wake)
    arm(wake)
  })
}

/** Wait ms (0 = yield one turn with setImmediate); cut short when the exchange closes. Never keeps the process alive. */
export function pause(exchange: Exchange, ms: number): Promise<void> {
  let cancel = (): void => {}
  return waitFor(
    exchange,
    (wake) => {
      if (ms > 0) {
        const timer = setTimeout(wake, ms).unref()
        cancel = () => clearTimeout(timer)
      } else {
        const immediate = setImmediate(wake).unref()
        cancel = () => clearImmediate(immediate)
      }
    },
    () => cancel(),
  )
}

/** Wait until `due` (a performance.now() time) on the shared pacer; cut short when the exchange closes. */
function sleepUntil(exchange: Exchange, due: number): Promise<void> {
  let woken = false
  return waitFor(
    exchange,
    (wake) => exchange.pacer.at(due, () => !woken && wake()),
    () => (woken = true),
  )
}
