import type { ChatMessage } from '../../../../shared/api/chat-request'
import type { Usage } from '../../../../shared/api/chat-response'
import type { ResponsesRequest } from '../../../../shared/api/responses-request'
import type { Tokenizer } from '../../../tokens/tokenizer'
import type { GenerationRequest, MessagesPrompt } from '../../generation-request'
import type { GenerationEvent } from '../../model-backend'
import { Derived } from '../../../../shared/api/element-results'
import { internalError } from '../../../errors'
import { promptJson } from '../../../http/json-text'
import type { OutgoingJson } from '../../../http/json-splice'
import type { UpstreamBodyOptions, UpstreamForm, UpstreamStreamDecoder, WholeReply } from '../upstream-form'

/**
 * POST {base}/responses, for model servers that speak the Responses API themselves (vLLM, LM
 * Studio, Ollama's newer builds). Tried first for a Responses request; a server without it
 * (404/405) is remembered per replica and asked in chat completions instead. One per request: it
 * keeps the client's request, whose Responses-only fields (`text`, `reasoning`) it sends under
 * their own names, while the conversation is the one the shared stages refined (tool selection,
 * the optimizer), so what the server reads is what was counted.
 */
export class ResponsesForm implements UpstreamForm {
  readonly path = '/responses'
  readonly mayBeMissing = true
  readonly unreadMembers = UNREAD_REPLY_MEMBERS

  constructor(readonly responses: ResponsesRequest) {}

  body(request: GenerationRequest, options: UpstreamBodyOptions): OutgoingJson {
    const prompt = messagesOf(request)
    const { instructions, input } = responsesInput(prompt.messages)
    const body: Record<string, unknown> = { model: options.model, input, stream: request.stream, store: false }
    if (instructions !== undefined) body.instructions = instructions
    if (options.maxTokens !== undefined) body.max_output_tokens = options.maxTokens
    if (prompt.tools.length > 0) {
      body.tools = prompt.tools.map(({ function: fn }) => ({ type: 'function', ...fn }))
      const choice = prompt.toolChoice
      if (choice !== undefined) body.tool_choice = typeof choice === 'string' ? choice : { type: 'function', name: choice.function.name }
      if (prompt.parallelToolCalls !== undefined) body.parallel_tool_calls = prompt.parallelToolCalls
    }
    const { responses } = this
    if (responses.temperature !== undefined) body.temperature = responses.temperature
    if (responses.topP !== undefined) body.top_p = responses.topP
    if (responses.textFormat !== undefined) body.text = { format: responses.textFormat }
    if (responses.reasoningEffort !== undefined) body.reasoning = { effort: responses.reasoningEffort }
    if (request.user !== undefined) body.user = request.user
    return promptJson.encodeFrom(body, request.source)
  }

  decoder(tokenizer: Tokenizer): UpstreamStreamDecoder {
    return new ResponsesEventDecoder(tokenizer)
  }

  whole(reply: unknown): WholeReply | undefined {
    return wholeResponse(reply)
  }
}

function messagesOf(request: GenerationRequest): MessagesPrompt {
  if (request.prompt.kind !== 'messages') {
    process.stderr.write('mortar: a plain prompt was offered to a model server as a Responses request\n')
    throw internalError()
  }
  return request.prompt
}

/**
 * A chat conversation as Responses input: a leading system message is `instructions`, later ones
 * `developer` messages; an assistant's tool calls follow its text as `function_call` items; a tool
 * message is a `function_call_output`.
 */
export function responsesInput(messages: readonly ChatMessage[]): { instructions: string | undefined; input: unknown[] } {
  let instructions: string | undefined
  const input: unknown[] = []
  messages.forEach((message, i) => {
    if (i === 0 && message.role === 'system') instructions = message.content ?? ''
    else input.push(...inputItems.of(message))
  })
  return { instructions, input }
}

/**
 * A message's items (a system message after the first is a developer message), kept with a
 * remembered message: a conversation is sent again on every turn, and the same items each time
 * let their JSON be kept too (http/json-text.ts).
 */
const inputItems = new Derived((message: ChatMessage): readonly unknown[] => {
  const content = message.content ?? ''
  switch (message.role) {
    case 'system':
    case 'user':
      return [{ type: 'message', role: message.role === 'user' ? 'user' : 'developer', content }]
    case 'assistant': {
      const items: unknown[] = content === '' ? [] : [{ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: content }] }]
      for (const call of message.tool_calls ?? []) items.push(callItems.of(call))
      return items
    }
    case 'tool':
      return [{ type: 'function_call_output', call_id: message.tool_call_id ?? '', output: content }]
  }
})

/** An assistant's tool call as an item, kept with a remembered call (one of a conversation's assistant message is made anew when it is joined to another). */
const callItems = new Derived((call: NonNullable<ChatMessage['tool_calls']>[number]): unknown => ({ type: 'function_call', call_id: call.id, name: call.function.name, arguments: call.function.arguments }))

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value)
const stringOf = (value: unknown): string => (typeof value === 'string' ? value : '')

/** What a response object repeats of its request, which `wholeResponse` never reads. */
const UNREAD_REPLY_MEMBERS: ReadonlySet<string> = new Set(['instructions', 'tools'])

/** The events that open a reply, before any output: each a response object repeating the request, which the gateway does not read. */
const UNREAD_EVENTS: ReadonlySet<string> = new Set(['response.created', 'response.in_progress'])

/**
 * A server's Responses events as gateway events: text and reasoning deltas (summary or raw
 * reasoning text alike), each function call as tool-call pieces (its first piece with the call's
 * id and name), and the terminal event's usage and ending. A failed response or an `error` event
 * is the server's failure mid-reply. Stateful: one per reply.
 */
export class ResponsesEventDecoder implements UpstreamStreamDecoder {
  readonly unread = UNREAD_EVENTS
  private finished = false
  /** output_index → the call's index among this reply's calls. */
  private readonly callAt = new Map<number, number>()

  constructor(private readonly tokenizer: Tokenizer) {}

  get sawFinish(): boolean {
    return this.finished
  }

  derivedFinish(): GenerationEvent {
    this.finished = true
    return { kind: 'finish', reason: this.callAt.size > 0 ? 'tool_calls' : 'stop', derived: true }
  }

  events(event: unknown): GenerationEvent[] {
    if (!isObject(event)) return []
    switch (event.type) {
      case 'response.output_text.delta':
        return this.text('content', event.delta)
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta':
        return this.text('reasoning', event.delta)
      case 'response.output_item.added': {
        const item = event.item
        if (!isObject(item) || item.type !== 'function_call' || typeof event.output_index !== 'number') return []
        const index = this.callAt.size
        this.callAt.set(event.output_index, index)
        const name = stringOf(item.name)
        const args = stringOf(item.arguments)
        return [
          {
            kind: 'tool_call',
            delta: { index, id: stringOf(item.call_id) || stringOf(item.id), type: 'function', function: { name, arguments: args } },
            tokens: this.tokenizer.count(name + args),
          },
        ]
      }
      case 'response.function_call_arguments.delta': {
        const index = typeof event.output_index === 'number' ? this.callAt.get(event.output_index) : undefined
        const piece = stringOf(event.delta)
        if (index === undefined || piece === '') return []
        return [{ kind: 'tool_call', delta: { index, function: { arguments: piece } }, tokens: this.tokenizer.count(piece) }]
      }
      case 'response.completed':
      case 'response.incomplete':
        return this.ending(event.response)
      case 'response.failed': {
        const response = isObject(event.response) ? event.response : {}
        const error = isObject(response.error) ? response.error : {}
        throw new Error(`it reported the response failed: ${stringOf(error.message) || 'no reason given'}`)
      }
      case 'error':
        throw new Error(`it sent an error event: ${stringOf(event.message) || 'no message'}`)
      default:
        return []
    }
  }

  private text(kind: 'content' | 'reasoning', delta: unknown): GenerationEvent[] {
    const text = stringOf(delta)
    return text === '' ? [] : [{ kind, text, tokens: this.tokenizer.count(text) }]
  }

  private ending(response: unknown): GenerationEvent[] {
    this.finished = true
    const events: GenerationEvent[] = []
    const usage = isObject(response) ? chatUsage(response.usage) : undefined
    if (usage !== undefined) events.push({ kind: 'usage', usage })
    events.push({ kind: 'finish', reason: finishReason(response, this.callAt.size > 0) })
    return events
  }
}

/** A Responses ending in chat's finish reasons: cut at the limit is `length`; a filter `content_filter`. */
function finishReason(response: unknown, madeCalls: boolean): string {
  const details = isObject(response) && isObject(response.incomplete_details) ? response.incomplete_details : undefined
  if (isObject(response) && response.status === 'incomplete') {
    return details?.reason === 'content_filter' ? 'content_filter' : 'length'
  }
  return madeCalls ? 'tool_calls' : 'stop'
}

/** The Responses API's usage in chat's names, its details kept. */
export function chatUsage(value: unknown): Usage | undefined {
  if (!isObject(value)) return undefined
  const { input_tokens, output_tokens, total_tokens, input_tokens_details, output_tokens_details } = value
  if (typeof input_tokens !== 'number' || typeof output_tokens !== 'number') return undefined
  const usage: Usage = {
    prompt_tokens: input_tokens,
    completion_tokens: output_tokens,
    total_tokens: typeof total_tokens === 'number' ? total_tokens : input_tokens + output_tokens,
  }
  if (isObject(input_tokens_details)) usage.prompt_tokens_details = input_tokens_details
  if (isObject(output_tokens_details)) usage.completion_tokens_details = output_tokens_details
  return usage
}

/** A Responses JSON reply as the gateway's whole reply; undefined when it is no response object. */
export function wholeResponse(reply: unknown): WholeReply | undefined {
  if (!isObject(reply) || !Array.isArray(reply.output)) return undefined
  let content = ''
  let reasoning = ''
  const toolCalls: unknown[] = []
  for (const item of reply.output) {
    if (!isObject(item)) continue
    if (item.type === 'message' && Array.isArray(item.content)) {
      for (const part of item.content) if (isObject(part) && part.type === 'output_text') content += stringOf(part.text)
    } else if (item.type === 'reasoning') {
      const parts = [...(Array.isArray(item.summary) ? item.summary : []), ...(Array.isArray(item.content) ? item.content : [])]
      for (const part of parts) if (isObject(part)) reasoning += stringOf(part.text)
    } else if (item.type === 'function_call') {
      toolCalls.push({
        id: stringOf(item.call_id) || stringOf(item.id),
        type: 'function',
        function: { name: stringOf(item.name), arguments: stringOf(item.arguments) },
      })
    }
  }
  return {
    content,
    reasoning: reasoning === '' ? undefined : reasoning,
    toolCalls,
    finishReason: finishReason(reply, toolCalls.length > 0),
    usage: chatUsage(reply.usage),
  }
}
