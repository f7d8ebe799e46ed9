// The limits are the schema's own (used only when called, so the two modules' cycle is harmless).
import { MAX_MESSAGES, MAX_TOOL_CALLS, MAX_TOOLS, TOOL_NAME_PATTERN, type ChatCompletionRequestBody, type ChatTool, type ToolCall } from './chat-request'
import { Derived } from './element-results'
import { isPositiveWholeNumber } from '../narrow'

// Kept in step with chatCompletionRequestSchema by a property test (chat-request-fast-path.test.ts).
const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool'])
const TOOL_CHOICES = new Set(['auto', 'none', 'required'])

/**
 * The common request — text messages, and an agent's tools, tool calls and tool results — checked
 * by hand. Validating with the zod schema took ~65 µs for a short chat (docs/benchmark.md) and
 * ~2 µs per message of an agent's history, on every turn; this takes a fraction. It answers only
 * when the body is plainly valid and returns exactly what the schema would; anything else (content
 * parts, a named tool_choice, duplicate tool names, any doubtful value) returns undefined, and the
 * schema decides — including every error message. A property test holds the two to the same output.
 */
export function parseSimpleChatRequest(json: unknown): ChatCompletionRequestBody | undefined {
  if (!isPlainObject(json)) return undefined
  const body = json as Record<string, unknown>
  const tools = isAbsent(body.tools) ? undefined : simpleTools(body.tools)
  if (tools === INVALID) return undefined
  const toolChoice = optionalOf(body.tool_choice, isToolChoiceWord)
  const parallelToolCalls = optionalOf(body.parallel_tool_calls, isBoolean)
  if (toolChoice === INVALID || parallelToolCalls === INVALID) return undefined
  // Without tools, a tool_choice or parallel_tool_calls is an error the schema words.
  if ((tools === undefined || tools.length === 0) && (toolChoice !== undefined || parallelToolCalls !== undefined)) return undefined
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
    const checked = isPlainObject(message) ? checkedMessages.of(message) : INVALID
    if (checked === INVALID) return undefined
    messages.push(checked)
  }
  return {
    messages,
    ...(model !== undefined ? { model } : {}),
    ...(stream !== undefined ? { stream } : {}),
    ...(streamOptions !== undefined ? { stream_options: includeUsage !== undefined ? { include_usage: includeUsage } : {} } : {}),
    ...(maxTokens !== undefined ? { max_tokens: maxTokens } : {}),
    ...(maxCompletionTokens !== undefined ? { max_completion_tokens: maxCompletionTokens } : {}),
    ...(user !== undefined ? { user } : {}),
    ...(tools !== undefined ? { tools } : {}),
    ...(toolChoice !== undefined ? { tool_choice: toolChoice } : {}),
    ...(parallelToolCalls !== undefined ? { parallel_tool_calls: parallelToolCalls } : {}),
  }
}

/**
 * One message as the schema returns it, or INVALID; kept with a message that never changes (a
 * remembered one, gateway/http/parsed-parts.ts), so that an agent's history is the same objects
 * turn after turn, and what is worked out from them (their normalized form, the prompt's count)
 * can be kept too.
 */
const checkedMessages = new Derived((message: Record<string, unknown>): ChatCompletionRequestBody['messages'][number] | typeof INVALID => {
  const { role, content } = message
  if (typeof role !== 'string' || !ROLES.has(role)) return INVALID
  const calls = isAbsent(message.tool_calls) ? undefined : simpleToolCalls(message.tool_calls)
  const toolCallId = optionalOf(message.tool_call_id, isString)
  if (calls === INVALID || toolCallId === INVALID) return INVALID
  // No text only on an assistant message that calls tools; a tool result names its call.
  if (typeof content !== 'string' && !(isAbsent(content) && role === 'assistant' && calls !== undefined && calls.length > 0)) return INVALID
  if (role === 'tool' && toolCallId === undefined) return INVALID
  return {
    role: role as 'system' | 'developer' | 'user' | 'assistant' | 'tool',
    content: typeof content === 'string' ? content : null,
    ...(calls !== undefined ? { tool_calls: calls } : {}),
    ...(toolCallId !== undefined ? { tool_call_id: toolCallId } : {}),
  }
})

/** Tool calls of an assistant message, as the schema returns them; INVALID when any is doubtful. */
function simpleToolCalls(value: unknown): ToolCall[] | typeof INVALID {
  if (!Array.isArray(value) || value.length > MAX_TOOL_CALLS) return INVALID
  const calls: ToolCall[] = []
  for (const call of value as unknown[]) {
    if (!isPlainObject(call) || typeof call.id !== 'string' || !isPlainObject(call.function)) return INVALID
    const type = optionalOf(call.type, isFunctionWord)
    const { name, arguments: args } = call.function
    if (type === INVALID || typeof name !== 'string' || typeof args !== 'string') return INVALID
    calls.push({ id: call.id, ...(type !== undefined ? { type } : {}), function: { name, arguments: args } })
  }
  return calls
}

/** The tools, as the schema returns them; INVALID when any is doubtful or two share a name. */
function simpleTools(value: unknown): ChatTool[] | typeof INVALID {
  if (!Array.isArray(value) || value.length > MAX_TOOLS) return INVALID
  const tools: ChatTool[] = []
  const names = new Set<string>()
  for (const tool of value as unknown[]) {
    const checked = isPlainObject(tool) ? checkedTools.of(tool) : INVALID
    if (checked === INVALID || names.has(checked.function.name)) return INVALID
    names.add(checked.function.name)
    tools.push(checked)
  }
  return tools
}

/**
 * One tool as the schema returns it, or INVALID; kept with a tool that never changes (a
 * remembered one, gateway/http/parsed-parts.ts): an agent sends its whole tool list on every
 * turn, and the same tool objects let what is worked out from them be kept too (its rendering).
 */
const checkedTools = new Derived((tool: Record<string, unknown>): ChatTool | typeof INVALID => {
  if (tool.type !== 'function' || !isPlainObject(tool.function)) return INVALID
  const fn = tool.function
  const description = optionalOf(fn.description, isString)
  const parameters = optionalOf(fn.parameters, isPlainObject)
  const strict = optionalOf(fn.strict, isBoolean)
  if (typeof fn.name !== 'string' || !TOOL_NAME_PATTERN.test(fn.name)) return INVALID
  if (description === INVALID || parameters === INVALID || strict === INVALID) return INVALID
  return {
    type: 'function',
    function: {
      name: fn.name,
      ...(description !== undefined ? { description } : {}),
      ...(parameters !== undefined ? { parameters } : {}),
      ...(strict !== undefined ? { strict } : {}),
    },
  }
})

const INVALID = Symbol('invalid')

/** `null` and absent are the same (IDE clients send explicit nulls); otherwise the value must pass. */
function optionalOf<T>(value: unknown, check: (value: unknown) => value is T): T | undefined | typeof INVALID {
  if (value === undefined || value === null) return undefined
  return check(value) ? value : INVALID
}

const isAbsent = (value: unknown) => value === undefined || value === null
const isFunctionWord = (value: unknown): value is 'function' => value === 'function'
const isToolChoiceWord = (value: unknown): value is 'auto' | 'none' | 'required' => typeof value === 'string' && TOOL_CHOICES.has(value)
const isString = (value: unknown): value is string => typeof value === 'string'
const isBoolean = (value: unknown): value is boolean => typeof value === 'boolean'

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
