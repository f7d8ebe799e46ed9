import type { Usage } from '../../../../shared/api/chat-response'
import { stoppedByOf, type StoppedBy } from '../../../../shared/api/stream-notes'
import { readAnthropicEvent } from './anthropic-events'
import { readResponseBody, responseItemSchema, type CompletionBody, type ResponseBody, type TextCompletionBody } from './reply-bodies'
import { streamChunkSchema, streamToolPieceSchema, type ReadError, type StreamChunk } from './stream-chunk'
import type { StreamFrame, TypedEvent } from './stream-frames'

export interface AssembledToolCall {
  index: number
  id: string | null
  type: string | null
  name: string
  arguments: string
  /** How many streamed pieces made it (1 for a non-streamed reply). */
  pieces: number
}

/** The parsed view of a reply: what the frames add up to. */
export interface AssembledReply {
  id: string | null
  model: string | null
  role: string | null
  content: string
  /** The model's reasoning (`reasoning_content`), shown apart from the reply's text. */
  reasoning: string
  toolCalls: AssembledToolCall[]
  finishReason: string | null
  usage: Usage | null
  error: ReadError | null
  sawDone: boolean
  chunks: number
  /** Chunks that carried reply text, reasoning or a tool-call piece. */
  deltas: number
  /** `at` of the first and last such chunk (ms since the request was sent). */
  firstDeltaAt: number | null
  lastDeltaAt: number | null
  pings: number
  /** Who stopped the stream, when the gateway said so in a comment (shared/api/stream-notes.ts). */
  stoppedBy: StoppedBy | null
  /** Things about the stream's shape a developer debugging a client would want to know. */
  anomalies: string[]
}

/** Whether the model said anything: text or tool calls (what a next assistant turn would hold). */
export function hasReply(reply: AssembledReply): boolean {
  return reply.content !== '' || reply.toolCalls.length > 0
}

export function emptyReply(): AssembledReply {
  return {
    id: null,
    model: null,
    role: null,
    content: '',
    reasoning: '',
    toolCalls: [],
    finishReason: null,
    usage: null,
    error: null,
    sawDone: false,
    chunks: 0,
    deltas: 0,
    firstDeltaAt: null,
    lastDeltaAt: null,
    pings: 0,
    stoppedBy: null,
    anomalies: [],
  }
}

const MAX_ANOMALIES = 50

/**
 * Folds stream frames into an AssembledReply, one frame at a time, so a long stream costs
 * O(frames) in total. Chat chunks, `text_completion` chunks (the same shape, with a choice's
 * `text` for its delta), Responses events and Anthropic events all add up to it. Tool calls are put together from their pieces by `index`, as clients must:
 * `id`, `type` and `function.name` come with the first piece, `arguments` are concatenated.
 */
export class ReplyAssembler {
  private readonly reply = emptyReply()
  // Appending builds ropes in JS engines, so view() stays cheap on long replies.
  private content = ''
  private reasoning = ''
  private readonly calls = new Map<number, AssembledToolCall>()

  add(frame: StreamFrame): void {
    const reply = this.reply
    if (frame.kind === 'ping') {
      reply.pings++
      return
    }
    if (frame.kind === 'comment') {
      reply.stoppedBy = stoppedByOf(frame.text) ?? reply.stoppedBy
      return
    }
    if (frame.kind === 'done') {
      if (reply.sawDone) this.anomaly(`frame ${frame.seq}: a second [DONE]`)
      reply.sawDone = true
      return
    }
    if (reply.sawDone) this.anomaly(`frame ${frame.seq}: ${frame.kind} after [DONE]`)
    if (frame.kind === 'error' && frame.error !== undefined) {
      reply.error = frame.error
      return
    }
    if (frame.kind === 'event' && frame.event !== undefined) return this.addEvent(frame.event, frame)
    if (frame.kind === 'invalid') this.anomaly(`frame ${frame.seq}: data that is not a chunk`)
    if (frame.kind === 'partial') this.anomaly(`frame ${frame.seq}: the stream ended inside a frame`)
    if (frame.kind !== 'chunk' || frame.chunk === undefined) return
    this.addChunk(frame.chunk, frame)
  }

  private addChunk(chunk: StreamChunk, frame: StreamFrame): void {
    const reply = this.reply
    reply.chunks++
    reply.id ??= typeof chunk.id === 'string' ? chunk.id : null
    reply.model ??= typeof chunk.model === 'string' ? chunk.model : null
    if (chunk.usage !== undefined && chunk.usage !== null) reply.usage = chunk.usage
    for (const choice of chunk.choices) {
      const delta = choice.delta
      let carried = false
      if (delta?.role !== undefined) reply.role ??= delta.role
      if (typeof delta?.content === 'string' && delta.content !== '') {
        this.content += delta.content
        carried = true
      }
      // A completions stream's text comes in the choice itself, not in a delta.
      if (typeof choice.text === 'string' && choice.text !== '') {
        this.content += choice.text
        carried = true
      }
      if (typeof delta?.reasoning_content === 'string' && delta.reasoning_content !== '') {
        this.reasoning += delta.reasoning_content
        carried = true
      }
      for (const piece of delta?.tool_calls ?? []) {
        this.addToolPiece(piece, frame.seq)
        carried = true
      }
      if (carried) {
        reply.deltas++
        reply.firstDeltaAt ??= frame.at
        reply.lastDeltaAt = frame.at
      }
      if (choice.finish_reason !== null && choice.finish_reason !== undefined) {
        if (reply.finishReason !== null) this.anomaly(`frame ${frame.seq}: a second finish_reason`)
        reply.finishReason = choice.finish_reason
      }
    }
  }

  view(): AssembledReply {
    const toolCalls = [...this.calls.values()].sort((a, b) => a.index - b.index).map((call) => ({ ...call }))
    return { ...this.reply, content: this.content, reasoning: this.reasoning, toolCalls, anomalies: [...this.reply.anomalies] }
  }

  /**
   * A Responses API event. Its text, reasoning and function calls add up as a chat stream's do
   * (a call's index is its output index); its terminal event ends the stream as `[DONE]` does a
   * chat stream, with the status (or why it is incomplete) as the finish reason — except a
   * response Mortar stopped, which is a stop, as its chat form is.
   */
  private addEvent(event: TypedEvent, frame: StreamFrame): void {
    const reply = this.reply
    // An Anthropic event adds up as the chunk it amounts to; message_stop ends the stream.
    const anthropic = readAnthropicEvent(event)
    if (anthropic !== undefined) {
      // The reader builds a chat chunk; read back through the chunk schema like any frame's.
      if (anthropic.chunk !== undefined) this.addChunk(streamChunkSchema.parse(anthropic.chunk), frame)
      if (anthropic.ends) {
        if (reply.sawDone) this.anomaly(`frame ${frame.seq}: a second message_stop`)
        reply.sawDone = true
      }
      if (event.type === 'ping') reply.pings++
      return
    }
    const carried = () => {
      reply.deltas++
      reply.firstDeltaAt ??= frame.at
      reply.lastDeltaAt = frame.at
    }
    const index = typeof event.output_index === 'number' ? event.output_index : null
    switch (event.type) {
      case 'response.created': {
        const response = readResponseBody(event.response)
        reply.id ??= response.id ?? null
        reply.model ??= response.model ?? null
        return
      }
      case 'response.output_text.delta':
        if (typeof event.delta === 'string' && event.delta !== '') {
          reply.role ??= 'assistant'
          this.content += event.delta
          carried()
        }
        return
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        if (typeof event.delta === 'string' && event.delta !== '') {
          this.reasoning += event.delta
          carried()
        }
        return
      case 'response.output_item.added': {
        const item = responseItemSchema.safeParse(event.item)
        if (!item.success || item.data.type !== 'function_call' || index === null) return
        const { call_id, name, arguments: args } = item.data
        this.addToolPiece({ index, id: call_id, type: 'function', function: { name, arguments: args } }, frame.seq)
        carried()
        return
      }
      case 'response.function_call_arguments.delta':
        if (index === null || typeof event.delta !== 'string') return
        this.addToolPiece({ index, function: { arguments: event.delta } }, frame.seq)
        carried()
        return
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        if (reply.sawDone) this.anomaly(`frame ${frame.seq}: a second terminal event`)
        reply.sawDone = true
        const response = readResponseBody(event.response)
        reply.usage = responsesUsage(response) ?? reply.usage
        const reason = response.incomplete_details?.reason
        if (reason === 'stopped' || reason === 'shutdown') reply.stoppedBy ??= reason === 'shutdown' ? 'shutdown' : 'stop_call'
        else if (event.type === 'response.failed') {
          reply.error ??= { message: response.error?.message ?? 'the response failed', type: 'server_error', param: null, code: null }
        } else reply.finishReason = reason ?? response.status ?? event.type
        return
      }
    }
  }

  /** A piece of a tool call, from a chat chunk or a Responses event: read by the chunk schema. */
  private addToolPiece(piece: unknown, seq: number): void {
    const p = streamToolPieceSchema.parse(piece)
    if (typeof p.index !== 'number') {
      this.anomaly(`frame ${seq}: a tool-call piece without an index`)
      return
    }
    let call = this.calls.get(p.index)
    if (call === undefined) {
      call = { index: p.index, id: null, type: null, name: '', arguments: '', pieces: 0 }
      this.calls.set(p.index, call)
    } else if (typeof p.id === 'string' && call.id !== null && p.id !== call.id) {
      this.anomaly(`frame ${seq}: tool call ${p.index} changed its id`)
    }
    call.pieces++
    if (typeof p.id === 'string') call.id ??= p.id
    if (typeof p.type === 'string') call.type ??= p.type
    if (typeof p.function?.name === 'string') call.name += p.function.name
    if (typeof p.function?.arguments === 'string') call.arguments += p.function.arguments
  }

  private anomaly(text: string): void {
    if (this.reply.anomalies.length < MAX_ANOMALIES) this.reply.anomalies.push(text)
  }
}

export function assembleFrames(frames: readonly StreamFrame[]): AssembledReply {
  const assembler = new ReplyAssembler()
  for (const frame of frames) assembler.add(frame)
  return assembler.view()
}

/** The parsed view of a non-streamed reply (`stream: false`). */
export function assembleCompletion(completion: CompletionBody): AssembledReply {
  const choice = completion.choices[0]
  const message = choice.message
  return {
    ...emptyReply(),
    id: completion.id ?? null,
    model: completion.model ?? null,
    role: message.role ?? null,
    content: message.content ?? '',
    reasoning: message.reasoning_content ?? '',
    toolCalls: (message.tool_calls ?? []).map((call, index) => ({
      index,
      id: call.id ?? null,
      type: call.type ?? null,
      name: call.function?.name ?? '',
      arguments: call.function?.arguments ?? '',
      pieces: 1,
    })),
    finishReason: choice.finish_reason ?? null,
    usage: completion.usage ?? null,
  }
}

/** The parsed view of a non-streamed completions reply (`object: "text_completion"`, POST /v1/completions). */
export function assembleTextCompletion(completion: TextCompletionBody): AssembledReply {
  const choice = completion.choices[0]
  return {
    ...emptyReply(),
    id: completion.id ?? null,
    model: completion.model ?? null,
    content: choice.text ?? '',
    finishReason: choice.finish_reason ?? null,
    usage: completion.usage ?? null,
  }
}

/** A Responses usage object in the chat names the inspector shows; null when it is none. */
function responsesUsage({ usage: value }: ResponseBody): Usage | null {
  if (value === null || value === undefined) return null
  const { input_tokens, output_tokens, total_tokens, input_tokens_details } = value
  const usage: Usage = { prompt_tokens: input_tokens, completion_tokens: output_tokens, total_tokens: total_tokens ?? input_tokens + output_tokens }
  if (input_tokens_details !== undefined) usage.prompt_tokens_details = input_tokens_details
  return usage
}

/**
 * The parsed view of a non-streamed Responses reply (`object: "response"`): its message text,
 * reasoning summaries and function calls, status and usage.
 */
export function assembleResponse(value: unknown): AssembledReply {
  const response = readResponseBody(value)
  const reply = emptyReply()
  let content = ''
  let reasoning = ''
  const toolCalls: AssembledToolCall[] = []
  const { output } = response
  output.forEach((item, index) => {
    if (item === null) return
    const texts = [...item.content, ...item.summary].map((part) => part.text)
    if (item.type === 'message') content += texts.join('')
    else if (item.type === 'reasoning') reasoning += texts.join('')
    else if (item.type === 'function_call') {
      toolCalls.push({ index, id: item.call_id ?? null, type: 'function', name: item.name ?? '', arguments: item.arguments ?? '', pieces: 1 })
    }
  })
  return {
    ...reply,
    id: response.id ?? null,
    model: response.model ?? null,
    role: output.length > 0 ? 'assistant' : null,
    content,
    reasoning,
    toolCalls,
    finishReason: response.incomplete_details?.reason ?? response.status ?? null,
    usage: responsesUsage(response),
  }
}

/** Whether a tool call's assembled arguments are JSON (what its caller will try to parse). */
export function argumentsAreJson(args: string): boolean {
  try {
    JSON.parse(args)
    return true
  } catch {
    return false
  }
}
