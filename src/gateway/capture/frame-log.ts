/**
 * A frame as recorded: the very string or buffer that was written or read, and when. Shaped like
 * the record's CapturedFrame, so a stream of strings is kept as recorded, not copied into new objects.
 */
export interface RecordedFrame {
  t_ms: number
  raw: string | Buffer
}

/**
 * The frames of one stream, bounded while the stream runs: the first ones up to half the budget,
 * then a rolling window of the latest ones up to the other half, so a stream of any length keeps
 * its start and its end (the finish chunk, usage, `[DONE]`) and counts what it dropped between.
 * Sizes are string lengths or byte lengths as the frames come; nothing is copied or re-encoded.
 */
export class FrameLog {
  readonly head: RecordedFrame[] = []
  private tail: RecordedFrame[] = []
  private tailStart = 0
  private headSize = 0
  private tailSize = 0
  dropped = 0
  droppedSize = 0

  constructor(private readonly budget: number) {}

  /** Keeps the frame (for now: it may be dropped later to stay within the budget); returns it. */
  push(raw: string | Buffer, t_ms: number): RecordedFrame {
    const frame = { t_ms, raw }
    const size = raw.length
    if (this.tail.length === 0 && this.headSize + size <= this.budget / 2) {
      this.head.push(frame)
      this.headSize += size
      return frame
    }
    this.tail.push(frame)
    this.tailSize += size
    while (this.tailSize > this.budget / 2 && this.tailStart < this.tail.length - 1) {
      const oldSize = this.tail[this.tailStart++]?.raw.length ?? 0
      this.tailSize -= oldSize
      this.dropped++
      this.droppedSize += oldSize
    }
    // Compact now and then, so dropped frames are released.
    if (this.tailStart > 64 && this.tailStart * 2 > this.tail.length) {
      this.tail = this.tail.slice(this.tailStart)
      this.tailStart = 0
    }
    return frame
  }

  /** Every kept frame in order. */
  frames(): RecordedFrame[] {
    return this.tailStart === 0 && this.tail.length === 0 ? this.head : [...this.head, ...this.tail.slice(this.tailStart)]
  }

  get length(): number {
    return this.head.length + this.tail.length - this.tailStart
  }
}
