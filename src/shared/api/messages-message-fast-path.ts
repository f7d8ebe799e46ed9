// The limit is the schema's own (used only when called, so the modules' cycle is harmless).
import { MAX_TOOL_CALLS } from './chat-request'
import type { MessagesContentBlock, MessagesMessage } from './messages-request'
import { isRecord } from '../narrow'

// Kept in step with the message schema of messages-request.ts by a property test (messages-message-fast-path.test.ts).
const ROLES = new Set(['user', 'assistant', 'system'])

/**
 * A Messages message of the shapes agents send on every turn — text, a string or text blocks;
 * `tool_use` and `tool_result` blocks — checked by hand: the schema cost ~0.5–1 µs per message,
 * once per message of the whole history on every turn. It answers only when the message is
 * plainly valid and returns exactly what the schema would; anything else (media, thinking, a
 * block in the wrong turn, any doubtful value) returns undefined, and the schema decides —
 * including every error message.
 */
export function simpleMessagesMessage(value: unknown): MessagesMessage | undefined {
  if (!isRecord(value)) return undefined
  const { role, content } = value
  if (typeof role !== 'string' || !ROLES.has(role)) return undefined
  if (typeof content === 'string') return { role: role as MessagesMessage['role'], content }
  if (!Array.isArray(content)) return undefined
  const blocks: MessagesContentBlock[] = []
  let toolUses = 0
  for (const block of content as unknown[]) {
    if (!isRecord(block)) return undefined
    const simple = role === 'assistant' ? assistantBlock(block) : role === 'user' ? userBlock(block) : textBlock(block)
    if (simple === undefined) return undefined
    if (simple.type === 'tool_use' && ++toolUses > MAX_TOOL_CALLS) return undefined
    blocks.push(simple)
  }
  return { role: role as MessagesMessage['role'], content: blocks }
}

function textBlock(block: Record<string, unknown>): MessagesContentBlock | undefined {
  return block.type === 'text' && typeof block.text === 'string' ? cached({ type: 'text', text: block.text }, block) : undefined
}

/** `cache_control`, the last field of every block the schema names, taken as it is when present. */
function cached<T extends MessagesContentBlock>(out: T, block: Record<string, unknown>): T {
  if ('cache_control' in block) (out as { cache_control?: unknown }).cache_control = block.cache_control
  return out
}

function assistantBlock(block: Record<string, unknown>): MessagesContentBlock | undefined {
  if (block.type !== 'tool_use') return textBlock(block)
  const { id, name } = block
  if (typeof id !== 'string' || typeof name !== 'string' || !('input' in block)) return undefined
  return cached({ type: 'tool_use', id, name, input: block.input }, block)
}

function userBlock(block: Record<string, unknown>): MessagesContentBlock | undefined {
  if (block.type !== 'tool_result') return textBlock(block)
  const { tool_use_id: id, is_error: isError } = block
  if (typeof id !== 'string' || ('is_error' in block && typeof isError !== 'boolean')) return undefined
  const out: Extract<MessagesContentBlock, { type: 'tool_result' }> = { type: 'tool_result', tool_use_id: id }
  if ('content' in block) {
    const content = toolResultContent(block.content)
    if (content === undefined) return undefined
    out.content = content
  }
  if ('is_error' in block) out.is_error = isError as boolean
  return cached(out, block)
}

function toolResultContent(content: unknown): string | { type: 'text'; text: string; cache_control?: unknown }[] | undefined {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return undefined
  const texts: { type: 'text'; text: string; cache_control?: unknown }[] = []
  for (const inner of content as unknown[]) {
    const text = isRecord(inner) ? textBlock(inner) : undefined
    if (text === undefined) return undefined
    texts.push(text as { type: 'text'; text: string })
  }
  return texts
}
