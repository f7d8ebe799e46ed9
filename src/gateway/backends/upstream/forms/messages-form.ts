import type { ToolCallDelta } from '../../../../shared/api/chat-response'
import { chatUsageOf, finishReasonOf } from '../../../../shared/api/messages-chat-terms'
import type { Tokenizer } from '../../../tokens/tokenizer'
import { spliceClientMembers, type OutgoingJson } from '../../../http/json-splice'
import { promptJson } from '../../../http/json-text'
import type { GenerationEvent } from '../../model-backend'
import type { UpstreamBodyOptions, UpstreamForm, UpstreamStreamDecoder, WholeReply } from '../upstream-form'

/**
 * POST {base}/messages: a model server's own Anthropic Messages endpoint (llama.cpp, vLLM and
 * Ollama have one). It is sent the client's body as the client wrote it — every field, known to
 * Mortar or not — with the server's model name, the planned max_tokens and `stream`; its reply is
 * read back into gateway events, so that the client's stream is written (and counted, captured,
 * stopped) as any other. A server without the path (404/405) is remembered, and the request goes
 * through chat completions instead. One form per request: it carries that request's body.
 */
export function messagesForm(clientBody: Record<string, unknown>): UpstreamForm {
  return {
    path: '/messages',
    mayBeMissing: true,
    body: (request, options: UpstreamBodyOptions): OutgoingJson => {
      const body = {
        ...clientBody,
        model: options.model,
        // Anthropic requires max_tokens: with none planned, the client's own stands.
        ...(options.maxTokens !== undefined ? { max_tokens: options.maxTokens } : {}),
        stream: request.stream,
      }
      // The conversation is the client's own value: its bytes go as they came (http/json-splice.ts).
      return spliceClientMembers(request.source, body, SPLICED_MEMBERS, (value) => promptJson.stringify(value)) ?? promptJson.encodeFrom(body, request.source)
    },
    decoder: (tokenizer) => new MessagesStreamDecoder(tokenizer),
    whole: wholeMessage,
  }
}

/** The members of a Messages body long enough to be worth sending as the client's bytes. */
const SPLICED_MEMBERS = ['messages', 'system', 'tools']

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)
const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/**
 * Reads a Messages stream's events (each `data:`'s JSON names its own type) into gateway events:
 * text and thinking deltas, one tool call per tool_use block (its ID and name first, then its
 * input's JSON pieces), the stop reason and usage from `message_delta`. Stateful: one per reply.
 */
class MessagesStreamDecoder implements UpstreamStreamDecoder {
  /** Each block's tool-call index, for the tool_use blocks among them. */
  private readonly toolIndexOfBlock = new Map<number, number>()
  private calls = 0
  private usage: Json = {}
  private finished = false

  constructor(private readonly tokenizer: Tokenizer) {}

  get sawFinish(): boolean {
    return this.finished
  }

  /** Never needed: a Messages stream ends with `message_delta`, not `[DONE]`. */
  derivedFinish(): GenerationEvent {
    this.finished = true
    return { kind: 'finish', reason: this.calls > 0 ? 'tool_calls' : 'stop', derived: true }
  }

  events(event: unknown): GenerationEvent[] {
    if (!isObject(event)) return []
    switch (event.type) {
      case 'message_start': {
        const message = isObject(event.message) ? event.message : {}
        if (isObject(message.usage)) this.usage = { ...message.usage }
        return []
      }
      case 'content_block_start':
        return this.blockStart(typeof event.index === 'number' ? event.index : -1, isObject(event.content_block) ? event.content_block : {})
      case 'content_block_delta':
        return this.blockDelta(typeof event.index === 'number' ? event.index : -1, isObject(event.delta) ? event.delta : {})
      case 'message_delta': {
        if (isObject(event.usage)) this.usage = { ...this.usage, ...withoutNulls(event.usage) }
        const delta = isObject(event.delta) ? event.delta : {}
        const reason = text(delta.stop_reason)
        if (reason === '') return []
        this.finished = true
        return [
          { kind: 'usage', usage: chatUsageOf(this.usage) },
          { kind: 'finish', reason: finishReasonOf(reason) },
        ]
      }
      default:
        return []
    }
  }

  private blockStart(index: number, block: Json): GenerationEvent[] {
    if (block.type === 'text') return this.content(text(block.text))
    if (block.type === 'thinking') return this.reasoning(text(block.thinking))
    if (block.type !== 'tool_use') return []
    const callIndex = this.calls++
    this.toolIndexOfBlock.set(index, callIndex)
    const events = [this.toolCall({ index: callIndex, id: text(block.id), type: 'function', function: { name: text(block.name), arguments: '' } })]
    // Anthropic starts a call with `input: {}` and streams the input; a server that sends it whole here is read the same.
    if (isObject(block.input) && Object.keys(block.input).length > 0) events.push(this.toolCall({ index: callIndex, function: { arguments: JSON.stringify(block.input) } }))
    return events
  }

  private blockDelta(index: number, delta: Json): GenerationEvent[] {
    switch (delta.type) {
      case 'text_delta':
        return this.content(text(delta.text))
      case 'thinking_delta':
        return this.reasoning(text(delta.thinking))
      case 'input_json_delta': {
        const callIndex = this.toolIndexOfBlock.get(index)
        const piece = text(delta.partial_json)
        return callIndex === undefined || piece === '' ? [] : [this.toolCall({ index: callIndex, function: { arguments: piece } })]
      }
      default:
        return []
    }
  }

  private content(piece: string): GenerationEvent[] {
    return piece === '' ? [] : [{ kind: 'content', text: piece, tokens: this.tokenizer.count(piece) }]
  }

  private reasoning(piece: string): GenerationEvent[] {
    return piece === '' ? [] : [{ kind: 'reasoning', text: piece, tokens: this.tokenizer.count(piece) }]
  }

  private toolCall(delta: ToolCallDelta): GenerationEvent {
    return { kind: 'tool_call', delta, tokens: this.tokenizer.count((delta.function?.name ?? '') + (delta.function?.arguments ?? '')) }
  }
}

/** A message object read whole, in the gateway's terms; undefined when it is not a message. */
function wholeMessage(reply: unknown): WholeReply | undefined {
  if (!isObject(reply) || !Array.isArray(reply.content)) return undefined
  let content = ''
  let reasoning: string | undefined
  const toolCalls: unknown[] = []
  for (const block of reply.content) {
    if (!isObject(block)) continue
    if (block.type === 'text') content += text(block.text)
    else if (block.type === 'thinking') reasoning = (reasoning ?? '') + text(block.thinking)
    else if (block.type === 'tool_use') {
      toolCalls.push({ id: text(block.id), type: 'function', function: { name: text(block.name), arguments: JSON.stringify(block.input ?? {}) } })
    }
  }
  const stopReason = text(reply.stop_reason)
  return {
    content,
    reasoning,
    toolCalls,
    finishReason: stopReason === '' ? undefined : finishReasonOf(stopReason),
    usage: isObject(reply.usage) ? chatUsageOf(reply.usage) : undefined,
  }
}

function withoutNulls(value: Json): Json {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined))
}
