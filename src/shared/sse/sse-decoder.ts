/**
 * A server-sent-events decoder: bytes → lines → events, as the WHATWG spec reads a stream.
 * Handles CRLF, CR and LF line ends, chunks split anywhere (inside a line, inside a multi-byte
 * character), multi-line `data:`, and `:` comments, which it reports separately so a caller can
 * show pings. Pure: used by the gateway to read model servers and by the renderer's inspector.
 */
export type SseEvent = { kind: 'data'; data: string; event?: string } | { kind: 'comment'; text: string }

export class SseDecoder {
  private readonly text = new TextDecoder()
  private buffer = ''
  private data: string[] = []
  private eventName: string | undefined
  private pendingCr = false

  /** Feed bytes (or text); returns the events completed by them. */
  push(chunk: Uint8Array | string): SseEvent[] {
    this.buffer += typeof chunk === 'string' ? chunk : this.text.decode(chunk, { stream: true })
    return this.drainLines()
  }

  /** The stream ended: an event without its closing blank line is dropped, as the spec says. */
  end(): SseEvent[] {
    this.buffer += this.text.decode()
    const events = this.drainLines()
    this.data = []
    this.eventName = undefined
    return events
  }

  private drainLines(): SseEvent[] {
    const events: SseEvent[] = []
    const buffer = this.buffer
    let start = 0
    // A CRLF split across two pushes: the LF belongs to the CR that already ended a line.
    if (this.pendingCr && buffer.charCodeAt(0) === 10) start = 1
    this.pendingCr = false
    for (let i = start; i < buffer.length; i++) {
      const ch = buffer.charCodeAt(i)
      if (ch !== 10 && ch !== 13) continue
      this.line(buffer.slice(start, i), events)
      if (ch === 13) {
        if (i + 1 === buffer.length) this.pendingCr = true
        else if (buffer.charCodeAt(i + 1) === 10) i++
      }
      start = i + 1
    }
    this.buffer = buffer.slice(start)
    return events
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) {
        const event: SseEvent = { kind: 'data', data: this.data.join('\n') }
        if (this.eventName !== undefined) event.event = this.eventName
        events.push(event)
      }
      this.data = []
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
    if (field === 'data') this.data.push(value)
    else if (field === 'event') this.eventName = value
  }
}
