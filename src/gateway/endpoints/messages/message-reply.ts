import type { AnthropicMessage, MessagesStreamEvent, ReplyBlock } from '../../../shared/api/messages-response'

/**
 * Folds a reply's events (message-events.ts) into the message object of a non-streamed reply,
 * the way a client folds the stream: blocks by index, text and thinking appended, a tool call's
 * input parsed from its pieces of JSON once the block is complete. Arguments that are not JSON
 * (a model server's broken output) are kept as the string they are, under `input`, rather than lost.
 */
export class MessageReply {
  private message: AnthropicMessage | undefined
  private readonly inputJson = new Map<number, string>()

  apply(event: MessagesStreamEvent): void {
    if (event.type === 'message_start') {
      this.message = { ...event.message, content: [] }
      return
    }
    const message = this.message
    if (message === undefined) return
    switch (event.type) {
      case 'content_block_start':
        message.content[event.index] = { ...event.content_block } as ReplyBlock
        return
      case 'content_block_delta': {
        const block = message.content[event.index]
        const { delta } = event
        if (block?.type === 'text' && delta.type === 'text_delta') block.text += delta.text
        else if (block?.type === 'thinking' && delta.type === 'thinking_delta') block.thinking += delta.thinking
        else if (block?.type === 'tool_use' && delta.type === 'input_json_delta') {
          this.inputJson.set(event.index, (this.inputJson.get(event.index) ?? '') + delta.partial_json)
        }
        return
      }
      case 'content_block_stop':
        this.settleInput(event.index)
        return
      case 'message_delta':
        message.stop_reason = event.delta.stop_reason
        message.stop_sequence = event.delta.stop_sequence
        // Every count present is the whole message's so far: it replaces, never adds.
        message.usage = {
          input_tokens: event.usage.input_tokens ?? message.usage.input_tokens,
          output_tokens: event.usage.output_tokens,
          cache_creation_input_tokens: event.usage.cache_creation_input_tokens ?? message.usage.cache_creation_input_tokens ?? null,
          cache_read_input_tokens: event.usage.cache_read_input_tokens ?? message.usage.cache_read_input_tokens ?? null,
        }
        return
      default:
        return
    }
  }

  applyAll(events: readonly MessagesStreamEvent[]): void {
    for (const event of events) this.apply(event)
  }

  /** The message as it stands; undefined before `message_start`. */
  result(): AnthropicMessage | undefined {
    if (this.message === undefined) return undefined
    for (const index of [...this.inputJson.keys()]) this.settleInput(index)
    return this.message
  }

  private settleInput(index: number): void {
    const json = this.inputJson.get(index)
    const block = this.message?.content[index]
    if (json === undefined || block?.type !== 'tool_use') return
    this.inputJson.delete(index)
    block.input = parseOrKeep(json)
  }
}

function parseOrKeep(json: string): unknown {
  if (json.trim() === '') return {}
  try {
    return JSON.parse(json)
  } catch {
    return json
  }
}
