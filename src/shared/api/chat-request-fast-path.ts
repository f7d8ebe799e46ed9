import type { ChatCompletionRequestBody } from './chat-request'

// Kept in step with chatCompletionRequestSchema by a property test (chat-request-fast-path.test.ts).
const MAX_MESSAGES = 512
const SIMPLE_ROLES = new Set(['system', 'developer', 'user', 'assistant'])

/**
 * The common request — text messages, no tools — checked by hand. Validating it with the zod
 * schema took ~65 µs of the gateway's ~200 µs before a request is forwarded (docs/benchmark.md);
 * this takes a few. It answers only when the body is plainly valid and returns exactly what the
 * schema would; anything else (tools, tool calls, content parts, `tool` messages, any doubtful
 * value) returns undefined, and the schema decides — including every error message. A property
 * test holds the two to the same output.
 */
export function parseSimpleChatRequest(json: unknown): ChatCompletionRequestBody | undefined {
  if (!isPlainObject(json)) return undefined
  const body = json as Record<string, unknown>
  if (!isAbsent(body.tools) || !isAbsent(body.tool_choice) || !isAbsent(body.parallel_tool_calls)) return undefined
  const model = optionalOf(body.model, isString)
  const stream = optionalOf(body.stream, isBoolean)
  const maxTokens = optionalOf(body.max_tokens, isPositiveWholeNumber)
  const maxCompletionTokens = optionalOf(body.max_completion_tokens, isPositiveWholeNumber)
  const user = optionalOf(body.user, isString)
  const streamOptions = optionalOf(body.stream_options, isPlainObject)
  if (model === INVALID || stream === INVALID || maxTokens === INVALID || maxCompletionTokens === INVALID || user === INVALID || streamOptions === INVALID) {
    return undefined
  }
  const includeUsage = streamOptions === undefined ? undefined : optionalOf(streamOptions.include_usage, isBoolean)
  if (includeUsage === INVALID) return undefined

  const raw = body.messages
  if (!Array.isArray(raw) || raw.length === 0 || raw.length > MAX_MESSAGES) return undefined
  const messages: ChatCompletionRequestBody['messages'] = []
  for (const message of raw as unknown[]) {
    if (!isPlainObject(message)) return undefined
    const { role, content } = message
    if (typeof role !== 'string' || !SIMPLE_ROLES.has(role) || typeof content !== 'string') return undefined
    if (!isAbsent(message.tool_calls) || !isAbsent(message.tool_call_id)) return undefined
    messages.push({ role: role as 'system' | 'developer' | 'user' | 'assistant', content })
  }
  return {
    messages,
    ...(model !== undefined ? { model } : {}),
    ...(stream !== undefined ? { stream } : {}),
    ...(streamOptions !== undefined ? { stream_options: includeUsage !== undefined ? { include_usage: includeUsage } : {} } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(maxCompletionTokens !== undefined ? { max_completion_tokens: maxCompletionTokens } : {}),
    ...(user !== undefined ? { user } : {}),
  }
}

const INVALID = Symbol('invalid')

/** `null` and absent are the same (IDE clients send explicit nulls); otherwise the value must pass. */
function optionalOf<T>(value: unknown, check: (value: unknown) => value is T): T | undefined | typeof INVALID {
  if (value === undefined || value === null) return undefined
  return check(value) ? value : INVALID
}

const isAbsent = (value: unknown) => value === undefined || value === null
const isString = (value: unknown): value is string => typeof value === 'string'
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean'
const isPositiveWholeNumber = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
