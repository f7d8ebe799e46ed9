import type { ResponsesInputItem } from './responses-request'
import { isRecord } from '../narrow'

// Kept in step with the input item schema of responses-request.ts by a property test (responses-item-fast-path.test.ts).
const ROLES = new Set(['user', 'assistant', 'system', 'developer'])

/**
 * A message's content as parts: the text ones count (`input_text`, `output_text`, a `refusal`'s
 * words), joined by newlines. Images, files and audio are dropped, as chat completions drops
 * them: the models Mortar fronts read text.
 */
export function contentText(parts: readonly unknown[]): string {
  const texts: string[] = []
  for (const part of parts) {
    const text = partText(part)
    if (text !== undefined) texts.push(text)
  }
  return texts.join('\n')
}

function partText(part: unknown): string | undefined {
  if (typeof part !== 'object' || part === null) return undefined
  const { type, text, refusal } = part as { type?: unknown; text?: unknown; refusal?: unknown }
  if ((type === 'input_text' || type === 'output_text' || type === 'text') && typeof text === 'string') return text
  if (type === 'refusal' && typeof refusal === 'string') return refusal
  return undefined
}

/**
 * An input item of the kinds agents send on every turn — a message, a function call, its output,
 * reasoning — checked by hand: the schema cost ~0.5 µs per item, once per item of the whole
 * history on every turn. It answers only when the item is plainly valid and returns exactly what
 * the schema would (keys in its order: a message without a `type` gets it last); anything else
 * returns undefined, and the schema decides — including every error message.
 */
export function simpleInputItem(value: unknown): ResponsesInputItem | undefined {
  if (!isRecord(value)) return undefined
  const item = value
  switch (item.type) {
    case undefined:
    case 'message': {
      const content = contentOf(item.content)
      if (typeof item.role !== 'string' || !ROLES.has(item.role) || content === undefined) return undefined
      const role = item.role as 'user' | 'assistant' | 'system' | 'developer'
      return 'type' in item ? { type: 'message', role, content } : ({ role, content, type: 'message' } as ResponsesInputItem)
    }
    case 'function_call': {
      const { call_id, name, arguments: args } = item
      if (typeof call_id !== 'string' || typeof name !== 'string' || typeof args !== 'string') return undefined
      return { type: 'function_call', call_id, name, arguments: args }
    }
    case 'function_call_output': {
      const output = contentOf(item.output)
      if (typeof item.call_id !== 'string' || output === undefined) return undefined
      return { type: 'function_call_output', call_id: item.call_id, output }
    }
    case 'reasoning':
      return { type: 'reasoning' }
    default:
      return undefined
  }
}

const contentOf = (content: unknown): string | undefined =>
  typeof content === 'string' ? content : Array.isArray(content) ? contentText(content as unknown[]) : undefined
