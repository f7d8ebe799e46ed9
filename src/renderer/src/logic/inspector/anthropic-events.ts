// Anthropic Messages streams (POST /v1/messages) in the inspector. Each event names its own
// `type` (message_start, content_block_delta, message_delta, …), so the stream reader takes it as
// an `event` frame; the summary and the assembler read it as the chat chunk it amounts to, here,
// so that one reading serves both. A tool call is known by its content block's index (unique
// within a message), which is what the assembler puts pieces together by.
import type { ChatCompletion, ChatCompletionChunk, ChunkDelta, Usage } from '../../../../shared/api/chat-response'
import { messageSchema, messagesStreamEventSchema } from '../../../../shared/api/messages-response'

/**
 * What an Anthropic stream event amounts to in chat terms: the chunk it carries (none for
 * content_block_stop and ping), whether it ends the stream (message_stop, as `[DONE]` does a chat
 * stream's), and a few words about it for when it carries nothing (a block's type).
 */
export interface AnthropicReading {
  chunk: ChatCompletionChunk | undefined
  ends: boolean
  detail: string
}

const reading = (chunk: ChatCompletionChunk | undefined, detail = '', ends = false): AnthropicReading => ({ chunk, ends, detail })

const chunkOf = (delta: ChunkDelta | undefined, finish: string | null, usage?: Usage, head: { id: string; model: string } = { id: '', model: '' }): ChatCompletionChunk => ({
  id: head.id,
  object: 'chat.completion.chunk',
  created: 0,
  model: head.model,
  choices: delta === undefined && finish === null ? [] : [{ index: 0, ...(delta !== undefined ? { delta } : {}), logprobs: null, finish_reason: finish }],
  ...(usage !== undefined ? { usage } : {}),
})

const usageOf = (input: number | null | undefined, output: number, cached: number | null | undefined): Usage => ({
  prompt_tokens: (input ?? 0) + (cached ?? 0),
  completion_tokens: output,
  total_tokens: (input ?? 0) + (cached ?? 0) + output,
  ...(cached !== null && cached !== undefined && cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
})

/** An Anthropic stream event read in chat terms; undefined when the event is not one (a Responses event…). */
export function readAnthropicEvent(value: unknown): AnthropicReading | undefined {
  const parsed = messagesStreamEventSchema.safeParse(value)
  if (!parsed.success) return undefined
  const event = parsed.data
  switch (event.type) {
    case 'message_start': {
      const { message } = event
      const usage = usageOf(message.usage.input_tokens, message.usage.output_tokens, message.usage.cache_read_input_tokens)
      return reading(chunkOf({ role: 'assistant' }, null, usage, message))
    }
    case 'content_block_start': {
      const block = event.content_block
      if (block.type === 'tool_use') return reading(chunkOf({ tool_calls: [{ index: event.index, id: block.id, type: 'function', function: { name: block.name, arguments: '' } }] }, null))
      if (block.type === 'text' && block.text !== '') return reading(chunkOf({ content: block.text }, null))
      if (block.type === 'thinking' && block.thinking !== '') return reading(chunkOf({ reasoning_content: block.thinking }, null))
      return reading(undefined, `${block.type} [${event.index}]`)
    }
    case 'content_block_delta': {
      const { delta } = event
      if (delta.type === 'text_delta') return reading(chunkOf({ content: delta.text }, null))
      if (delta.type === 'thinking_delta') return reading(chunkOf({ reasoning_content: delta.thinking }, null))
      if (delta.type === 'input_json_delta') return reading(chunkOf({ tool_calls: [{ index: event.index, function: { arguments: delta.partial_json } }] }, null))
      return reading(undefined, `${delta.type} [${event.index}]`)
    }
    case 'content_block_stop':
      return reading(undefined, `[${event.index}]`)
    case 'message_delta': {
      const { usage } = event
      return reading(chunkOf(undefined, event.delta.stop_reason, usageOf(usage.input_tokens, usage.output_tokens, usage.cache_read_input_tokens)))
    }
    case 'message_stop':
      return reading(undefined, '', true)
    case 'ping':
      return reading(undefined)
    case 'error':
      // An error event has an `error` object: the stream reader already took it as an error.
      return undefined
  }
}

/** A non-streamed Anthropic message as the chat completion it amounts to; undefined when the value is not one. */
export function anthropicMessageAsCompletion(value: unknown): ChatCompletion | undefined {
  const parsed = messageSchema.safeParse(value)
  if (!parsed.success) return undefined
  const message = parsed.data
  let content = ''
  let reasoning = ''
  const toolCalls: NonNullable<ChatCompletion['choices'][0]['message']['tool_calls']> = []
  for (const block of message.content) {
    if (block.type === 'text') content += block.text
    else if (block.type === 'thinking') reasoning += block.thinking
    else toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: JSON.stringify(block.input) } })
  }
  return {
    id: message.id,
    object: 'chat.completion',
    created: 0,
    model: message.model,
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content, ...(reasoning !== '' ? { reasoning_content: reasoning } : {}), ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
        logprobs: null,
        finish_reason: message.stop_reason ?? 'stop',
      },
    ],
    usage: usageOf(message.usage.input_tokens, message.usage.output_tokens, message.usage.cache_read_input_tokens),
  }
}
