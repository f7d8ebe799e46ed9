import type { ToolCallDelta, Usage } from '../../../shared/api/chat-response'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { GenerationEvent } from '../model-backend'

/**
 * Turn one `chat.completion.chunk` from a model server into gateway events: content, tool-call
 * pieces exactly as the server made them (only the fields it sent; never `null` for absent ones),
 * its finish reason, and its usage with any `*_details` it included. Role-only and empty pieces
 * carry nothing and are skipped; the gateway writes its own role chunk.
 */
export function eventsOfChunk(chunk: unknown, tokenizer: Tokenizer): GenerationEvent[] {
  const events: GenerationEvent[] = []
  if (typeof chunk !== 'object' || chunk === null) return events
  const { choices, usage } = chunk as { choices?: unknown; usage?: unknown }
  const choice = Array.isArray(choices) ? (choices[0] as Record<string, unknown> | undefined) : undefined
  const delta = choice?.delta as { content?: unknown; tool_calls?: unknown } | undefined
  if (typeof delta?.content === 'string' && delta.content !== '') {
    events.push({ kind: 'content', text: delta.content, tokens: tokenizer.count(delta.content) })
  }
  if (Array.isArray(delta?.tool_calls)) {
    for (const raw of delta.tool_calls) {
      const piece = toolCallDelta(raw)
      if (piece !== undefined) {
        const text = (piece.function?.name ?? '') + (piece.function?.arguments ?? '')
        events.push({ kind: 'tool_call', delta: piece, tokens: tokenizer.count(text) })
      }
    }
  }
  if (typeof choice?.finish_reason === 'string') events.push({ kind: 'finish', reason: choice.finish_reason })
  if (isUsage(usage)) events.push({ kind: 'usage', usage })
  return events
}

export function toolCallDelta(raw: unknown): ToolCallDelta | undefined {
  if (typeof raw !== 'object' || raw === null) return undefined
  const { index, id, type, function: fn } = raw as Record<string, unknown>
  if (typeof index !== 'number') return undefined
  const piece: ToolCallDelta = { index }
  if (typeof id === 'string') piece.id = id
  if (type === 'function') piece.type = 'function'
  if (typeof fn === 'object' && fn !== null) {
    const { name, arguments: args } = fn as Record<string, unknown>
    piece.function = { arguments: typeof args === 'string' ? args : '' }
    if (typeof name === 'string') piece.function = { name, arguments: piece.function.arguments }
  }
  return piece
}

export function isUsage(value: unknown): value is Usage {
  if (typeof value !== 'object' || value === null) return false
  const u = value as Record<string, unknown>
  return typeof u.prompt_tokens === 'number' && typeof u.completion_tokens === 'number' && typeof u.total_tokens === 'number'
}
