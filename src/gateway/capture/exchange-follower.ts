import type { ServerResponse } from 'node:http'
import type { CapturedFrame, Exchange, ExchangeFollowEvent } from '../../shared/api/traffic'
import { SseFrameSplitter } from '../../shared/sse/sse-frame-splitter'
import { sendToSubscriber } from '../telemetry/telemetry-bus'
import type { ExchangeRecorder, ExchangeWatcher } from './exchange-recorder'
import type { RecordedFrame } from './frame-log'

/**
 * Frames are sent in batches at most this often: a fast stream is a few events a second, not one
 * per token, and a person watching sees no difference.
 */
export const FOLLOW_BATCH_MS = 50

/**
 * One GET /v1/traffic/exchanges/{id}/live subscriber of a running exchange: the exchange as it
 * stands, then the frames of both sides as they are recorded, then the final record. The model
 * server's socket pieces are cut into events as the record cuts them (build-exchange.ts), by a
 * splitter that has seen every piece the snapshot holds. A new fact (the response's headers, the
 * model server's answer) sends a new snapshot instead of frames. Never waits on its reader: one
 * that falls more than the subscriber buffer limit behind is dropped, as on every live stream.
 */
export class ExchangeFollower implements ExchangeWatcher {
  private frames: CapturedFrame[] = []
  private upstreamFrames: CapturedFrame[] = []
  private splitter = new SseFrameSplitter()
  private snapshotDue = false
  private timer: NodeJS.Timeout | undefined
  private done = false

  constructor(
    private readonly recorder: ExchangeRecorder,
    private readonly res: ServerResponse,
    private readonly snapshot: () => Exchange,
  ) {}

  /** Send the exchange as it stands and watch it from now on. */
  start(): void {
    ;(this.recorder.watchers ??= new Set()).add(this)
    this.sendSnapshot()
  }

  frame(side: 'response' | 'upstream', frame: RecordedFrame): void {
    if (side === 'response') this.frames.push({ t_ms: frame.t_ms, raw: textOf(frame.raw) })
    else for (const raw of this.splitter.push(frame.raw)) this.upstreamFrames.push({ t_ms: frame.t_ms, raw })
    this.schedule()
  }

  changed(): void {
    this.snapshotDue = true
    this.schedule()
  }

  /** The exchange ended: its final record, then the stream ends. */
  ended(exchange: Exchange): void {
    if (this.done) return
    this.stop()
    if (this.send({ type: 'exchange.ended', exchange })) this.res.end()
  }

  /** The subscriber left (or was dropped): stop watching. */
  stop(): void {
    this.done = true
    clearTimeout(this.timer)
    this.recorder.watchers?.delete(this)
    if (this.recorder.watchers?.size === 0) this.recorder.watchers = undefined
  }

  private schedule(): void {
    this.timer ??= setTimeout(() => this.flush(), FOLLOW_BATCH_MS)
  }

  private flush(): void {
    this.timer = undefined
    if (this.done) return
    if (this.snapshotDue) return this.sendSnapshot()
    if (this.frames.length === 0 && this.upstreamFrames.length === 0) return
    const event: ExchangeFollowEvent = { type: 'exchange.frames', frames: this.frames, upstream_frames: this.upstreamFrames }
    this.frames = []
    this.upstreamFrames = []
    this.send(event)
  }

  private sendSnapshot(): void {
    this.snapshotDue = false
    this.frames = []
    this.upstreamFrames = []
    this.splitter = new SseFrameSplitter()
    for (const piece of this.recorder.upstream?.frames.frames() ?? []) this.splitter.push(piece.raw)
    this.send({ type: 'exchange.snapshot', exchange: this.snapshot() })
  }

  private send(event: ExchangeFollowEvent): boolean {
    if (sendToSubscriber(this.res, `data: ${JSON.stringify(event)}\n\n`)) return true
    this.stop()
    return false
  }
}

function textOf(raw: string | Buffer): string {
  return typeof raw === 'string' ? raw : raw.toString('utf8')
}
