import { z } from 'zod'

/**
 * The response contract of POST /v1/messages (Anthropic's Messages API): the message object, its
 * content blocks, its usage, and the stream's events. The gateway writes them and the inspector
 * reads them with these definitions; readers parse with the schemas, since a stream may also
 * come from a model server's own /v1/messages.
 */

export const MESSAGES_STOP_REASONS = ['end_turn', 'max_tokens', 'stop_sequence', 'tool_use', 'pause_turn', 'refusal'] as const
export type MessagesStopReason = (typeof MESSAGES_STOP_REASONS)[number]

export const messagesUsageSchema = z.object({
  input_tokens: z.number(),
  output_tokens: z.number(),
  cache_creation_input_tokens: z.number().nullable().optional(),
  cache_read_input_tokens: z.number().nullable().optional(),
})
export type MessagesUsage = z.output<typeof messagesUsageSchema>

export const textBlockSchema = z.object({ type: z.literal('text'), text: z.string() })
export const toolUseBlockSchema = z.object({ type: z.literal('tool_use'), id: z.string(), name: z.string(), input: z.unknown() })
export const thinkingBlockSchema = z.object({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() })

export const replyBlockSchema = z.discriminatedUnion('type', [textBlockSchema, toolUseBlockSchema, thinkingBlockSchema])
export type ReplyBlock = z.output<typeof replyBlockSchema>

export const messageSchema = z.object({
  id: z.string(),
  type: z.literal('message'),
  role: z.literal('assistant'),
  model: z.string(),
  content: z.array(replyBlockSchema),
  stop_reason: z.string().nullable(),
  stop_sequence: z.string().nullable(),
  usage: messagesUsageSchema,
})
export type AnthropicMessage = z.output<typeof messageSchema>

export const blockDeltaSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('text_delta'), text: z.string() }),
  z.object({ type: z.literal('input_json_delta'), partial_json: z.string() }),
  z.object({ type: z.literal('thinking_delta'), thinking: z.string() }),
  z.object({ type: z.literal('signature_delta'), signature: z.string() }),
])
export type BlockDelta = z.output<typeof blockDeltaSchema>

/** The stream's events; each is sent as `event: <type>` with the object as its data. */
export const messagesStreamEventSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('message_start'), message: messageSchema }),
  z.object({ type: z.literal('content_block_start'), index: z.number(), content_block: replyBlockSchema }),
  z.object({ type: z.literal('content_block_delta'), index: z.number(), delta: blockDeltaSchema }),
  z.object({ type: z.literal('content_block_stop'), index: z.number() }),
  z.object({
    type: z.literal('message_delta'),
    delta: z.object({ stop_reason: z.string().nullable(), stop_sequence: z.string().nullable() }),
    usage: messagesUsageSchema.partial().extend({ output_tokens: z.number() }),
  }),
  z.object({ type: z.literal('message_stop') }),
  z.object({ type: z.literal('ping') }),
  z.object({ type: z.literal('error'), error: z.object({ type: z.string(), message: z.string() }) }),
])
export type MessagesStreamEvent = z.output<typeof messagesStreamEventSchema>
export type MessagesStreamEventType = MessagesStreamEvent['type']

export interface CountTokensResponse {
  input_tokens: number
}
