import type { ToolCallDelta } from '../../../shared/api/chat-response'
import type { MessagesStopReason, MessagesStreamEvent, MessagesUsage } from '../../../shared/api/messages-response'
import { randomHex } from '../../random-id'

/**
 * Turns a generation's events (text, reasoning, tool-call pieces, its finish) into the events of
 * a Messages reply: content blocks opened, filled and closed in order — a thinking block for
 * reasoning, a text block for text, one tool_use block per call — then `message_delta` with the
 * stop reason and usage, then `message_stop`. The stream writes these events as they come; the
 * JSON reply is the same events folded into one message (message-reply.ts), so both forms say
 * the same thing. Pure: no I/O.
 */
export class MessageEvents {
  private index = -1
  private open: 'text' | 'thinking' | 'tool_use' | undefined
  /** Block index of each tool call, by the call's chat index. */
  private readonly toolBlocks = new Map<number, number>()

  constructor(
    private readonly id: string,
    private readonly model: string,
  ) {}

  /** The first event: the message with no content yet and the prompt's token count. */
  start(inputTokens: number): MessagesStreamEvent {
    return {
      type: 'message_start',
      message: {
        id: this.id,
        type: 'message',
        role: 'assistant',
        model: this.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { input_tokens: inputTokens, output_tokens: 0, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
      },
    }
  }

  content(text: string): MessagesStreamEvent[] {
    const events = this.enter('text')
    events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'text_delta', text } })
    return events
  }

  reasoning(text: string): MessagesStreamEvent[] {
    const events = this.enter('thinking')
    events.push({ type: 'content_block_delta', index: this.index, delta: { type: 'thinking_delta', thinking: text } })
    return events
  }

  /** A call's first piece opens its tool_use block; every piece's arguments are an `input_json_delta`. */
  toolCall(delta: ToolCallDelta): MessagesStreamEvent[] {
    const events: MessagesStreamEvent[] = []
    let block = this.toolBlocks.get(delta.index)
    if (block === undefined) {
      events.push(...this.close())
      block = ++this.index
      this.open = 'tool_use'
      this.toolBlocks.set(delta.index, block)
      events.push({
        type: 'content_block_start',
        index: block,
        content_block: { type: 'tool_use', id: toolUseId(delta.id), name: delta.function?.name ?? '', input: {} },
      })
    }
    const pieceOfArguments = delta.function?.arguments ?? ''
    if (pieceOfArguments !== '') events.push({ type: 'content_block_delta', index: block, delta: { type: 'input_json_delta', partial_json: pieceOfArguments } })
    return events
  }

  /** The last events: the open block closed, the stop reason with the final usage, `message_stop`. */
  finish(stopReason: MessagesStopReason, usage: MessagesUsage): MessagesStreamEvent[] {
    const events = this.close()
    events.push(
      {
        type: 'message_delta',
        delta: { stop_reason: stopReason, stop_sequence: null },
        // Input counts too: a model server's own count arrives only at the end, and replaces the gateway's.
        usage: {
          input_tokens: usage.input_tokens,
          output_tokens: usage.output_tokens,
          cache_creation_input_tokens: usage.cache_creation_input_tokens ?? 0,
          cache_read_input_tokens: usage.cache_read_input_tokens ?? 0,
        },
      },
      { type: 'message_stop' },
    )
    return events
  }

  private enter(kind: 'text' | 'thinking'): MessagesStreamEvent[] {
    if (this.open === kind) return []
    const events = this.close()
    this.index++
    this.open = kind
    events.push({
      type: 'content_block_start',
      index: this.index,
      content_block: kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' },
    })
    return events
  }

  private close(): MessagesStreamEvent[] {
    if (this.open === undefined) return []
    this.open = undefined
    return [{ type: 'content_block_stop', index: this.index }]
  }
}

/** A message ID: `msg_` and 24 hexadecimal characters. */
export function newMessageId(): string {
  return 'msg_' + randomHex(12)
}

/**
 * A tool call's ID as Anthropic clients know them, `toolu_…`: the chat ID with its `call_` prefix
 * swapped (so the same call has the same ID in both APIs), or a new one when the server sent none.
 */
export function toolUseId(chatId: string | undefined): string {
  if (chatId === undefined || chatId === '') return 'toolu_' + randomHex(12)
  if (chatId.startsWith('toolu_')) return chatId
  return 'toolu_' + chatId.replace(/^call_/, '')
}
