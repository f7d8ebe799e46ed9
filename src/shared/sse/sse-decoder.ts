import { LineEnds } from './line-ends'

/**
 * A server-sent-events decoder: bytes → lines → events, as the WHATWG spec reads a stream.
 * Handles CRLF, CR and LF line ends, chunks split anywhere (inside a line, inside a multi-byte
 * character), multi-line `data:`, and `:` comments, which it reports separately so a caller can
 * show pings. Pure: used by the gateway to read model servers and by the renderer's inspector.
 *
 * Linear and bounded whatever the stream: each push scans only the text it adds, and one line, or
 * one event's data, may hold at most `MAX_SSE_LINE_CHARS` / `MAX_SSE_EVENT_CHARS` characters.
 * Past either, `push` throws an `SseLimitError` (and so does every later push): the reader treats
 * the stream as broken, which for a model server's reply is an `upstream_error`.
 */
export type SseEvent = { kind: 'data'; data: string; event?: string } | { kind: 'comment'; text: string }

/** The longest line the decoder holds (UTF-16 code units, ≥ 1 MiB of UTF-8): a real chunk is a few KB. */
export const MAX_SSE_LINE_CHARS = 1024 * 1024
/** The most data one event may carry, its `data:` lines joined. */
export const MAX_SSE_EVENT_CHARS = 1024 * 1024

export class SseLimitError extends Error {
  constructor(what: 'line' | 'event', limit: number) {
    super(`an event-stream ${what} is longer than ${limit.toLocaleString('en-US')} characters`)
    this.name = 'SseLimitError'
  }
}

export class SseDecoder {
  private readonly text = new TextDecoder()
  /** The current line's text so far, in the pieces it came in (joined once the line ends). */
  private pieces: string[] = []
  private pieceChars = 0
  private data: string[] = []
  private dataChars = 0
  private eventName: string | undefined
  private pendingCr = false
  private failed: SseLimitError | undefined

  /** Feed bytes (or text); returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[] {
    return this.scan(typeof chunk === 'string' ? chunk : this.text.decode(chunk, { stream: true }))
  }

  /** The stream ended: an event without its closing blank line is dropped, as the spec says. */
  end(): SseEvent[] {
    const events = this.scan(this.text.decode())
    this.pieces = []
    this.pieceChars = 0
    this.data = []
    this.dataChars = 0
    this.eventName = undefined
    return events
  }

  /** How many characters of an unfinished line it holds: never more than `MAX_SSE_LINE_CHARS`. */
  get bufferedChars(): number {
    return this.pieceChars
  }

  private scan(text: string): SseEvent[] {
    if (this.failed !== undefined) throw this.failed
    const events: SseEvent[] = []
    if (text === '') return events
    let start = 0
    // A CRLF split across two pushes: the LF belongs to the CR that already ended a line.
    if (this.pendingCr && text.charCodeAt(0) === 10) start = 1
    this.pendingCr = false
    const ends = new LineEnds(text)
    for (let i = ends.next(start); i !== -1; i = ends.next(start)) {
      this.line(this.takeLine(text, start, i), events)
      if (text.charCodeAt(i) === 13) {
        if (i + 1 === text.length) this.pendingCr = true
        else if (text.charCodeAt(i + 1) === 10) i++
      }
      start = i + 1
    }
    if (start < text.length) {
      this.checkLine(this.pieceChars + text.length - start)
      this.pieces.push(text.slice(start))
      this.pieceChars += text.length - start
    }
    return events
  }

  /** The line that ends at `end` of `text`: what is held of it, and its part of `text`. */
  private takeLine(text: string, start: number, end: number): string {
    const tail = text.slice(start, end)
    if (this.pieces.length === 0) return tail
    this.checkLine(this.pieceChars + tail.length)
    this.pieces.push(tail)
    const line = this.pieces.join('')
    this.pieces = []
    this.pieceChars = 0
    return line
  }

  private checkLine(chars: number): void {
    if (chars > MAX_SSE_LINE_CHARS) this.fail(new SseLimitError('line', MAX_SSE_LINE_CHARS))
  }

  private fail(error: SseLimitError): never {
    this.failed = error
    this.pieces = []
    this.pieceChars = 0
    this.data = []
    this.dataChars = 0
    throw error
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) {
        // One data line, as model servers send: no join.
        const event: SseEvent = { kind: 'data', data: this.data.length === 1 ? this.data[0]! : this.data.join('\n') }
        if (this.eventName !== undefined) event.event = this.eventName
        events.push(event)
      }
      this.data = []
      this.dataChars = 0
      this.eventName = undefined
      return
    }
    if (line.startsWith(':')) {
      events.push({ kind: 'comment', text: line.slice(1).trimStart() })
      return
    }
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') {
      this.dataChars += value.length + 1
      if (this.dataChars > MAX_SSE_EVENT_CHARS + 1) this.fail(new SseLimitError('event', MAX_SSE_EVENT_CHARS))
      this.data.push(value)
    } else if (field === 'event') this.eventName = value
  }
}
