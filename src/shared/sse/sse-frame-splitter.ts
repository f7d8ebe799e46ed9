import { LineEnds } from './line-ends'

/**
 * Cuts a server-sent-events stream into its frames' exact text: everything up to and including
 * the blank line that ends each event, line ends as sent (LF, CRLF or CR). The inspector shows
 * these raw frames and feeds each one to SseDecoder for its meaning, so what is displayed is
 * byte for byte what arrived, however the network split it.
 *
 * Blank lines with nothing before them (allowed by the SSE spec, never sent by Mortar) belong to
 * the frame that follows them.
 */
export class SseFrameSplitter {
  private readonly text = new TextDecoder()
  private buffer = ''
  /** Next index of `buffer` to scan. */
  private pos = 0
  private lineStart = 0
  private frameHasContent = false

  /** Feed bytes (or text); returns the frames they complete. */
  push(chunk: Uint8Array | string): string[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.text.decode(chunk, { stream: true })
    return this.scan(false)
  }

  /** The stream ended: the frames still completable, and any text after the last one. */
  end(): { frames: string[]; partial: string } {
    this.buffer += this.text.decode()
    const frames = this.scan(true)
    const partial = this.buffer
    this.buffer = ''
    this.pos = 0
    this.lineStart = 0
    this.frameHasContent = false
    return { frames, partial }
  }

  private scan(final: boolean): string[] {
    const frames: string[] = []
    const buffer = this.buffer
    let frameStart = 0
    const ends = new LineEnds(buffer)
    // Where scanning stops: the whole buffer, or a CR that may be the first half of a CRLF.
    let scanned = buffer.length
    let i = this.pos
    for (let end = ends.next(i); end !== -1; end = ends.next(i)) {
      let lineEnd = end + 1
      if (buffer.charCodeAt(end) === 13) {
        // A CR as the last character may be the first half of a CRLF: wait for the next push.
        if (end + 1 === buffer.length && !final) {
          scanned = end
          break
        }
        if (buffer.charCodeAt(end + 1) === 10) lineEnd = end + 2
      }
      const blank = end === this.lineStart
      this.lineStart = lineEnd
      if (!blank) this.frameHasContent = true
      else if (this.frameHasContent) {
        frames.push(buffer.slice(frameStart, lineEnd))
        frameStart = lineEnd
        this.frameHasContent = false
      }
      i = lineEnd
    }
    this.buffer = buffer.slice(frameStart)
    this.pos = scanned - frameStart
    this.lineStart -= frameStart
    return frames
  }
}
