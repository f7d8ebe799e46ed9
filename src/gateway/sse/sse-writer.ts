import type { ServerResponse } from 'node:http'
import { sseComment, sseData, type Frames } from './frames'
import { setResponseHeader, writeResponseHead } from '../http/response-head'

/**
 * Writes a server-sent event stream with backpressure: when the socket's buffer is full, the next
 * write waits for `drain` (or for the client to leave), so a slow reader slows the generation
 * instead of growing memory. The common case — buffer not full — stays synchronous.
 */
/** What every event stream's head says, besides the headers of its route. */
const SSE_HEADERS = [
  ['Content-Type', 'text/event-stream; charset=utf-8'],
  ['Cache-Control', 'no-cache, no-transform'],
  ['X-Accel-Buffering', 'no'],
  ['Connection', 'keep-alive'],
] as const

export class SseWriter {
  /** The opening is being held until the event loop's turn ends (`open`). */
  private holding = false

  constructor(private readonly res: ServerResponse) {}

  get closed(): boolean {
    // `writableEnded` too: another owner may end the response (the telemetry bus drops a slow
    // subscriber), and a write after that would be an 'error' event nobody listens to.
    return this.res.destroyed || this.res.writableEnded
  }

  /**
   * Set the status and headers. They leave with the frames written in the rest of this turn of
   * the event loop: the opening frames (the role chunk, a comment) and, when the model server's
   * headers and its first data came in one read — as a server that has its first token ready
   * sends them — the first content too. One write instead of two on the way to the first token;
   * a first token that comes later finds the opening already sent, at the end of the turn.
   */
  open(): void {
    for (const [name, value] of SSE_HEADERS) setResponseHeader(this.res, name, value)
    writeResponseHead(this.res, 200)
    // Small frames must leave at once, not wait for Nagle's algorithm.
    this.res.socket?.setNoDelay(true)
    // Node flushes a response's writes when the current tick's callbacks are done; the first
    // content is read a few ticks later in the same turn (its 'data' waits for the stream to
    // start flowing), so the opening is held until the turn's I/O callbacks have all run.
    this.res.cork()
    this.holding = true
    setImmediate(() => {
      this.holding = false
      this.res.uncork()
    })
  }

  /** One `data:` event. `json` is already serialized and holds no raw line breaks. */
  data(json: string): Promise<void> | void {
    return this.write(sseData(json))
  }

  comment(text: string): Promise<void> | void {
    return this.write(sseComment(text))
  }

  /** Complete frames (sse/frames.ts), each in its own write; waits, when it must, after the last. */
  frames(frames: Frames): Promise<void> | void {
    if (typeof frames === 'string') return this.write(frames)
    let pending: Promise<void> | void = undefined
    for (const frame of frames) pending = this.write(frame) ?? pending
    return pending
  }

  /**
   * A generation event's frames (a delta), handed to the socket now rather than when the current
   * tick's callbacks are done, as Node does with writes (it corks the socket until then). A model
   * server's last event often comes in one read with its finish, usage and `[DONE]`, and the work
   * they start — the reply's end, the connection's release, the generation's end — ran first and
   * held the last delta back by a millisecond or more: the longest gap between a stream's deltas.
   * While the opening is held, the frames wait for it.
   */
  event(frames: Frames): Promise<void> | void {
    const pending = this.frames(frames)
    if (!this.holding && !this.closed) this.res.uncork()
    return pending
  }

  /** Write the stream's last frames, the final one with the response's end. */
  async end(frames: readonly string[]): Promise<void> {
    const last = frames.length - 1
    for (let i = 0; i < last; i++) await this.write(frames[i] as string)
    if (this.closed) return
    this.res.end(frames[last])
  }

  /** End without `[DONE]`: a failed stream must not look complete, so it never gets `[DONE]`. */
  abandon(): void {
    if (this.closed) return
    this.res.end()
  }

  private write(frame: string): Promise<void> | void {
    if (this.closed) return
    if (this.res.write(frame)) return
    return new Promise<void>((resolve) => {
      const settle = () => {
        this.res.off('drain', settle)
        this.res.off('close', settle)
        resolve()
      }
      this.res.on('drain', settle)
      this.res.on('close', settle)
    })
  }
}
