import { z } from 'zod'
import { SseDecoder, type SseEvent } from '../../../../shared/sse/sse-decoder'
import { SseFrameSplitter } from '../../../../shared/sse/sse-frame-splitter'
import { readErrorEnvelope, streamChunkSchema, type ReadError, type StreamChunk } from './stream-chunk'

/**
 * What a frame of a chat-completion stream is:
 * - `chunk`: a `chat.completion.chunk` object;
 * - `event`: an event that names its own `type` (the Responses API's `response.output_text.delta`…);
 * - `done`: `data: [DONE]`;
 * - `error`: a `{"error": …}` event (the stream then ends without `[DONE]`), or the Responses
 *   API's `{"type": "error", "message": …}`;
 * - `ping`: the `: ping` keep-alive comment; `comment`: any other comment;
 * - `invalid`: data that is not JSON, or JSON of no known shape;
 * - `other`: a frame with no data and no comment (an `event:` or `id:` line alone);
 * - `partial`: text after the last complete frame when the stream ended.
 */
export type FrameKind = 'chunk' | 'event' | 'done' | 'error' | 'ping' | 'comment' | 'invalid' | 'other' | 'partial'

export interface StreamFrame {
  /** 0, 1, 2… in arrival order. */
  seq: number
  /** Milliseconds from sending the request to this frame's arrival. */
  at: number
  /** Milliseconds since the previous frame arrived (for the first: since the request was sent). */
  dt: number
  /** The frame's exact text, blank line included. */
  raw: string
  kind: FrameKind
  /** The data of a data event, or the text of a comment. */
  text: string
  chunk?: StreamChunk
  /** A typed event's JSON (its `type` a string), read as unknown: any server may have sent it. */
  event?: TypedEvent
  error?: ReadError
}

/** An event that names its own type (the Responses API's); its other fields are read as unknown. */
const typedEventSchema = z.looseObject({ type: z.string() })
export type TypedEvent = z.output<typeof typedEventSchema>

type Classified = Pick<StreamFrame, 'kind' | 'text' | 'chunk' | 'event' | 'error'>

function classifyData(data: string): Classified {
  if (data === '[DONE]') return { kind: 'done', text: data }
  let value: unknown
  try {
    value = JSON.parse(data)
  } catch {
    return { kind: 'invalid', text: data }
  }
  const error = readErrorEnvelope(value)
  if (error !== null) return { kind: 'error', text: data, error }
  const chunk = streamChunkSchema.safeParse(value)
  if (chunk.success) return { kind: 'chunk', text: data, chunk: chunk.data }
  const typed = typedEventSchema.safeParse(value)
  if (typed.success) {
    const event = typed.data
    if (event.type === 'error' && typeof event.message === 'string') {
      const field = (v: unknown) => (typeof v === 'string' ? v : null)
      return { kind: 'error', text: data, error: { message: event.message, type: 'error', param: field(event.param), code: field(event.code) } }
    }
    return { kind: 'event', text: data, event }
  }
  return { kind: 'invalid', text: data }
}

/** The meaning of one raw frame, from the events SseDecoder read in it. */
export function classifyEvents(events: readonly SseEvent[]): Classified {
  const data = events.find((event) => event.kind === 'data')
  if (data !== undefined) return classifyData(data.data)
  const comment = events.find((event) => event.kind === 'comment')
  if (comment !== undefined) return { kind: comment.text === 'ping' ? 'ping' : 'comment', text: comment.text }
  return { kind: 'other', text: '' }
}

/**
 * Turns the bytes of a response body into StreamFrames as they arrive. `at` is the caller's clock
 * (ms since the request was sent), so the recorder stays pure and testable.
 */
export class StreamFrameRecorder {
  private readonly splitter = new SseFrameSplitter()
  private readonly decoder = new SseDecoder()
  private seq = 0
  private lastAt = 0

  push(chunk: Uint8Array | string, at: number): StreamFrame[] {
    return this.splitter.push(chunk).map((raw) => this.frame(raw, this.decoder.push(raw), at))
  }

  /** The body ended: frames completed by the end, and the unterminated rest as a `partial` frame. */
  end(at: number): StreamFrame[] {
    const { frames, partial } = this.splitter.end()
    const out = frames.map((raw) => this.frame(raw, this.decoder.push(raw), at))
    if (partial !== '') {
      const frame = this.frame(partial, [], at)
      out.push({ ...frame, kind: 'partial', text: partial })
    }
    return out
  }

  private frame(raw: string, events: readonly SseEvent[], at: number): StreamFrame {
    const frame: StreamFrame = { seq: this.seq++, at, dt: at - this.lastAt, raw, ...classifyEvents(events) }
    this.lastAt = at
    return frame
  }
}
