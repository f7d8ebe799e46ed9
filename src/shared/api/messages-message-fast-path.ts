// The limit is the schema's own (used only when called, so the modules' cycle is harmless).
import { MAX_TOOL_CALLS } from './chat-request'
import type { MessagesContentBlock, MessagesMessage } from './messages-request'

// Kept in step with the message schema of messages-request.ts by a property test (messages-message-fast-path.test.ts).
const ROLES = new Set(['user', 'assistant', 'system'])

/**
 * A Messages message of the shapes agents send on every turn — text, a string or text blocks;
 * `tool_use` and `tool_result` blocks — checked by hand: the schema cost ~0.5–1 µs per message,
 * once per message of the whole history on every turn. It answers only when the message is
 * plainly valid and returns exactly what the schema would; anything else (media, thinking,
 * `cache_control`, `is_error`, a block in the wrong turn, any doubtful value) returns undefined,
 * and the schema decides — including every error message.
 */
export function simpleMessagesMessage(value: unknown): MessagesMessage | undefined {
  if (!isObject(value)) return undefined
  const { role, content } = value
  if (typeof role !== 'string' || !ROLES.has(role)) return undefined
  if (typeof content === 'string') return { role: role as MessagesMessage['role'], content }
  if (!Array.isArray(content)) return undefined
  const blocks: MessagesContentBlock[] = []
  let toolUses = 0
  for (const block of content as unknown[]) {
    if (!isObject(block) || 'cache_control' in block) return undefined
    const simple = role === 'assistant' ? assistantBlock(block) : role === 'user' ? userBlock(block) : textBlock(block)
    if (simple === undefined) return undefined
    if (simple.type === 'tool_use' && ++toolUses > MAX_TOOL_CALLS) return undefined
    blocks.push(simple)
  }
  return { role: role as MessagesMessage['role'], content: blocks }
}

function textBlock(block: Record<string, unknown>): MessagesContentBlock | undefined {
  return block.type === 'text' && typeof block.text === 'string' ? { type: 'text', text: block.text } : undefined
}

function assistantBlock(block: Record<string, unknown>): MessagesContentBlock | undefined {
  if (block.type !== 'tool_use') return textBlock(block)
  const { id, name } = block
  if (typeof id !== 'string' || typeof name !== 'string' || !('input' in block)) return undefined
  return { type: 'tool_use', id, name, input: block.input }
}

function userBlock(block: Record<string, unknown>): MessagesContentBlock | undefined {
  if (block.type !== 'tool_result') return textBlock(block)
  const { tool_use_id: id, content } = block
  if (typeof id !== 'string' || 'is_error' in block) return undefined
  if (!('content' in block)) return { type: 'tool_result', tool_use_id: id }
  if (typeof content === 'string') return { type: 'tool_result', tool_use_id: id, content }
  if (!Array.isArray(content)) return undefined
  const texts: { type: 'text'; text: string }[] = []
  for (const inner of content as unknown[]) {
    if (!isObject(inner) || 'cache_control' in inner || inner.type !== 'text' || typeof inner.text !== 'string') return undefined
    texts.push({ type: 'text', text: inner.text })
  }
  return { type: 'tool_result', tool_use_id: id, content: texts }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
