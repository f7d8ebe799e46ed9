// The limits are the schema's own (used only when called, so the modules' cycle is harmless).
import { MAX_MESSAGES, MAX_TOOLS } from './chat-request'
import { isPositiveWholeNumber, isRecord } from '../narrow'

// Kept in step with messages-request.ts's body schemas by a property test (messages-fields-fast-path.test.ts).

/**
 * The fields of a Messages body other than its messages and tools, checked by hand in the forms
 * clients send (Claude Code's: a model, system blocks with `cache_control`, max_tokens, stream,
 * metadata, thinking) — zod's object of a dozen optional fields cost ~10 µs per request, short
 * prompts included. Returns exactly what the body schema with `messages` and `tools` left
 * `unknown` gives (those two as they are, not copied: the caller puts their checked elements in
 * their place), or undefined for anything else, which zod then decides. `request`: the fields of POST
 * /v1/messages beyond the prompt's (count_tokens has none).
 */
export function simpleMessagesFields(json: unknown, request: boolean): Record<string, unknown> | undefined {
  if (!isRecord(json)) return undefined
  const body = json
  const out: Record<string, unknown> = {}
  if (typeof body.model !== 'string' || body.model === '') return undefined
  out.model = body.model
  if ('system' in body) {
    const system = systemOf(body.system)
    if (system === undefined) return undefined
    out.system = system
  }
  const { messages, tools } = body
  if (!Array.isArray(messages) || messages.length === 0 || messages.length > MAX_MESSAGES) return undefined
  out.messages = messages
  if ('tools' in body) {
    if (!Array.isArray(tools) || tools.length > MAX_TOOLS) return undefined
    out.tools = tools
  }
  if ('tool_choice' in body) {
    const choice = toolChoiceOf(body.tool_choice)
    if (choice === undefined) return undefined
    out.tool_choice = choice
  }
  if ('thinking' in body) {
    const thinking = thinkingOf(body.thinking)
    if (thinking === undefined) return undefined
    out.thinking = thinking
  }
  if (!request) return out
  if (!isPositiveWholeNumber(body.max_tokens)) return undefined
  out.max_tokens = body.max_tokens
  for (const [name, valid] of REQUEST_FIELDS) {
    if (!(name in body)) continue
    if (!valid(body[name])) return undefined
    out[name] = body[name]
  }
  if ('metadata' in body) {
    const metadata = body.metadata
    if (!isRecord(metadata)) return undefined
    const userId = metadata.user_id
    if (!('user_id' in metadata)) out.metadata = {}
    else if (userId === null || typeof userId === 'string') out.metadata = { user_id: userId }
    else return undefined
  }
  return out
}

const isUnit = (value: unknown) => typeof value === 'number' && value >= 0 && value <= 1

/** The request's plain fields between max_tokens and metadata, in the schema's order. */
const REQUEST_FIELDS: [string, (value: unknown) => boolean][] = [
  ['stream', (value) => typeof value === 'boolean'],
  ['stop_sequences', (value) => Array.isArray(value) && value.every((item) => typeof item === 'string')],
  ['temperature', isUnit],
  ['top_p', isUnit],
  ['top_k', isPositiveWholeNumber],
]

function systemOf(system: unknown): unknown {
  if (typeof system === 'string') return system
  if (!Array.isArray(system)) return undefined
  const blocks: Record<string, unknown>[] = []
  for (const block of system as unknown[]) {
    if (!isRecord(block) || block.type !== 'text' || typeof block.text !== 'string') return undefined
    blocks.push('cache_control' in block ? { type: 'text', text: block.text, cache_control: block.cache_control } : { type: 'text', text: block.text })
  }
  return blocks
}

function toolChoiceOf(choice: unknown): Record<string, unknown> | undefined {
  if (!isRecord(choice)) return undefined
  const { type, name } = choice
  if (type === 'none') return { type }
  if (type !== 'auto' && type !== 'any' && type !== 'tool') return undefined
  const out: Record<string, unknown> = { type }
  if (type === 'tool') {
    if (typeof name !== 'string') return undefined
    out.name = name
  }
  if ('disable_parallel_tool_use' in choice) {
    if (typeof choice.disable_parallel_tool_use !== 'boolean') return undefined
    out.disable_parallel_tool_use = choice.disable_parallel_tool_use
  }
  return out
}

function thinkingOf(thinking: unknown): Record<string, unknown> | undefined {
  if (!isRecord(thinking)) return undefined
  const { type } = thinking
  if (type === 'disabled' || type === 'adaptive' || type === 'between_tools') return { type }
  if (type === 'enabled' && isPositiveWholeNumber(thinking.budget_tokens)) return { type, budget_tokens: thinking.budget_tokens }
  return undefined
}
