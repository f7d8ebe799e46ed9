import { anthropicErrorEnvelope } from '../../../shared/api/anthropic-errors'
import type { Usage } from '../../../shared/api/chat-response'
import { messagesUsageOf, stopReasonOf } from '../../../shared/api/messages-chat-terms'
import type { AnthropicMessage, MessagesStreamEvent } from '../../../shared/api/messages-response'
import { STOPPED_COMMENT } from '../../../shared/api/stream-notes'
import type { GatewayError } from '../../errors'
import type { ErrorFormat } from '../../http/error-format'
import type { CompletionContext } from '../../pipeline/completion-context'
import { sseComment, sseEvent } from '../../sse/frames'
import type { AssembledReply, StreamEncoder, StreamEnding, WireFormat } from '../endpoint'
import { MessageEvents } from './message-events'
import { MessageReply } from './message-reply'

/** Anthropic's envelope; a failed stream ends with one `event: error` and no `message_stop`. */
export const ANTHROPIC_ERRORS: ErrorFormat = {
  body: (error: GatewayError) => anthropicErrorEnvelope(error.code, error.message, null),
  streamError: (error: GatewayError) => sseEvent('error', JSON.stringify(anthropicErrorEnvelope(error.code, error.message, null))),
}

/**
 * The Messages API on the wire. A stream is `message_start` (with the prompt's token count), then
 * `ping`, then each content block's `content_block_start`, deltas and `content_block_stop`, then
 * `message_delta` (stop reason, final usage) and `message_stop` — each an `event:` with its data,
 * as Anthropic's SDKs read them. A generation stopped by POST /v1/generations/{id}/stop (or
 * shutdown) still ends that way, with `end_turn` and a comment saying who stopped it: a client
 * must be able to keep what it got. The JSON reply is the same events folded into one message.
 */
export const messagesWire: WireFormat = {
  ...ANTHROPIC_ERRORS,
  stream: (context) => new MessagesStreamEncoder(context),
  json: messageObject,
}

const frame = (event: MessagesStreamEvent): string => sseEvent(event.type, JSON.stringify(event))
const frames = (events: readonly MessagesStreamEvent[]): string[] => events.map(frame)
const PING = frame({ type: 'ping' })

class MessagesStreamEncoder implements StreamEncoder {
  readonly startReadsPromptTokens = true
  private readonly events: MessageEvents

  constructor(private readonly context: CompletionContext) {
    this.events = new MessageEvents(context.id, context.model.id)
  }

  start(): string[] {
    return [frame(this.events.start(this.context.plan.promptTokens)), PING]
  }

  content(text: string): string[] {
    return frames(this.events.content(text))
  }

  reasoning(text: string): string[] {
    return frames(this.events.reasoning(text))
  }

  toolCall(delta: Parameters<MessageEvents['toolCall']>[0]): string[] {
    return frames(this.events.toolCall(delta))
  }

  end(ending: StreamEnding, usage: () => Usage): string[] {
    const stopReason = ending.kind === 'finished' ? stopReasonOf(ending.reason) : 'end_turn'
    const last = frames(this.events.finish(stopReason, messagesUsageOf(usage())))
    return ending.kind === 'stopped' ? [sseComment(STOPPED_COMMENT[ending.by]), ...last] : last
  }
}

function messageObject(context: CompletionContext, reply: AssembledReply): AnthropicMessage {
  const events = new MessageEvents(context.id, context.model.id)
  const message = new MessageReply()
  message.apply(events.start(reply.usage.prompt_tokens))
  if (reply.reasoning !== '') message.applyAll(events.reasoning(reply.reasoning))
  if (reply.content !== '') message.applyAll(events.content(reply.content))
  reply.toolCalls.forEach((call, index) => message.applyAll(events.toolCall({ index, id: call.id, function: call.function })))
  message.applyAll(events.finish(reply.stopped ? 'end_turn' : stopReasonOf(reply.finishReason), messagesUsageOf(reply.usage)))
  const result = message.result()
  if (result === undefined) throw new Error('a message reply was folded without its start')
  return result
}
