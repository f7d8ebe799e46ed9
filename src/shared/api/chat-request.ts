import { z } from 'zod'
import { parseSimpleChatRequest } from './chat-request-fast-path'
import { firstIssue, formatParamPath, invalidFieldMessage } from './first-issue'

/**
 * The request contract of POST /v1/chat/completions (field by field in README.md and
 * docs/api-decisions.md).
 * One source of truth: the gateway validates with these schemas and every type below is inferred
 * from them. Unknown fields are stripped: the API ignores any field it does not define.
 *
 * Optional fields accept `null` as "absent": several IDE clients send explicit nulls.
 */

export const DEFAULT_MODEL_ID = 'Qwen/Qwen2.5-7B-Instruct'
export const MAX_MESSAGES = 512
export const MAX_TOOLS = 128
export const MAX_TOOL_CALLS = 128
export const TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,64}$/

/** An optional field that also takes `null` as absent. */
export const optional = <T extends z.ZodType>(schema: T) =>
  schema
    .nullish()
    .transform((v) => v ?? undefined)
    .optional()

// Not zod's .int(): that also caps the value at 2^53, and a larger max_tokens is valid (planning lowers it).
export const positiveWholeNumber = z
  .number({ error: 'must be a positive whole number' })
  .refine((n) => Number.isInteger(n) && n > 0, { error: 'must be a positive whole number' })

/** A content part array keeps the `text` of each part; parts without text (images…) are dropped. */
const contentParts = z.array(z.unknown()).transform((parts) =>
  parts
    .map((part) =>
      typeof part === 'object' && part !== null && typeof (part as { text?: unknown }).text === 'string'
        ? (part as { text: string }).text
        : undefined,
    )
    .filter((text): text is string => text !== undefined)
    .join('\n'),
)

const messageContent = z.union([z.string(), contentParts], {
  error: 'must be a string or an array of content parts',
})

const toolCallSchema = z.object({
  id: z.string({ error: 'must be a string' }),
  type: optional(z.literal('function', { error: "must be 'function'" })),
  function: z.object(
    {
      name: z.string({ error: 'must be a string' }),
      arguments: z.string({ error: 'must be a string of JSON text' }),
    },
    { error: 'must be an object with `name` and `arguments`' },
  ),
})

const roles = ['system', 'developer', 'user', 'assistant', 'tool'] as const

const messageSchema = z
  .object(
    {
      role: z.enum(roles, { error: "must be one of 'system', 'user', 'assistant' or 'tool'" }),
      content: messageContent.nullish(),
      tool_calls: optional(
        z
          .array(toolCallSchema, { error: 'must be an array' })
          .max(MAX_TOOL_CALLS, { error: `must have at most ${MAX_TOOL_CALLS} entries` }),
      ),
      tool_call_id: optional(z.string({ error: 'must be a string' })),
    },
    { error: 'must be an object' },
  )
  .superRefine((message, ctx) => {
    const hasToolCalls = message.role === 'assistant' && (message.tool_calls?.length ?? 0) > 0
    if (message.content == null && !hasToolCalls) {
      ctx.addIssue({
        code: 'custom',
        path: ['content'],
        message:
          message.content === null
            ? 'may be null only on an assistant message with `tool_calls`'
            : 'is required (a string or an array of content parts)',
      })
    }
    if (message.role === 'tool' && message.tool_call_id === undefined) {
      ctx.addIssue({ code: 'custom', path: ['tool_call_id'], message: 'is required on `tool` messages' })
    }
  })

const toolSchema = z.object(
  {
    type: z.literal('function', { error: "must be 'function'" }),
    function: z.object(
      {
        name: z
          .string({ error: 'must be a string' })
          .regex(TOOL_NAME_PATTERN, { error: 'must be 1 to 64 letters, digits, underscores or dashes' }),
        description: optional(z.string({ error: 'must be a string' })),
        parameters: optional(z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' })),
        strict: optional(z.boolean({ error: 'must be a boolean' })),
      },
      { error: 'must be an object' },
    ),
  },
  { error: 'must be an object' },
)

const namedToolChoice = z.object({
  type: z.literal('function', { error: "must be 'function'" }),
  function: z.object({ name: z.string({ error: 'must be a string' }) }, { error: 'must be an object with `name`' }),
})

const toolChoiceSchema = z.union([z.enum(['auto', 'none', 'required']), namedToolChoice], {
  error: "must be 'auto', 'none', 'required' or {\"type\": \"function\", \"function\": {\"name\": …}}",
})

export const chatCompletionRequestSchema = z
  .object(
    {
      model: optional(z.string({ error: 'must be a string' })),
      messages: z
        .array(messageSchema, { error: 'is required: an array of messages' })
        .min(1, { error: 'must have at least 1 message' })
        .max(MAX_MESSAGES, { error: `must have at most ${MAX_MESSAGES} messages` }),
      stream: optional(z.boolean({ error: 'must be a boolean' })),
      stream_options: optional(
        z.object(
          { include_usage: optional(z.boolean({ error: 'must be a boolean' })) },
          { error: 'must be an object' },
        ),
      ),
      max_tokens: optional(positiveWholeNumber),
      // Newer OpenAI clients send this instead of max_tokens; it means the same thing here.
      max_completion_tokens: optional(positiveWholeNumber),
      user: optional(z.string({ error: 'must be a string' })),
      tools: optional(
        z
          .array(toolSchema, { error: 'must be an array of tools' })
          .max(MAX_TOOLS, { error: `must have at most ${MAX_TOOLS} tools` }),
      ),
      tool_choice: optional(toolChoiceSchema),
      parallel_tool_calls: optional(z.boolean({ error: 'must be a boolean' })),
    },
    { error: 'The request body must be a JSON object' },
  )
  .superRefine((body, ctx) => {
    const tools = body.tools ?? []
    const seen = new Set<string>()
    tools.forEach((tool, index) => {
      if (seen.has(tool.function.name)) {
        ctx.addIssue({
          code: 'custom',
          path: ['tools', index, 'function', 'name'],
          message: `duplicates the tool name '${tool.function.name}': each tool needs its own name`,
        })
      }
      seen.add(tool.function.name)
    })
    if (tools.length === 0) {
      if (body.tool_choice !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: 'needs `tools`' })
      }
      if (body.parallel_tool_calls !== undefined) {
        ctx.addIssue({ code: 'custom', path: ['parallel_tool_calls'], message: 'needs `tools`' })
      }
    } else if (typeof body.tool_choice === 'object' && !seen.has(body.tool_choice.function.name)) {
      ctx.addIssue({
        code: 'custom',
        path: ['tool_choice', 'function', 'name'],
        message: `names '${body.tool_choice.function.name}', which is not in \`tools\``,
      })
    }
  })

export type ChatCompletionRequestBody = z.output<typeof chatCompletionRequestSchema>
export type ChatTool = NonNullable<ChatCompletionRequestBody['tools']>[number]
export type ToolChoice = NonNullable<ChatCompletionRequestBody['tool_choice']>
export type ToolCall = z.output<typeof toolCallSchema>

/** A message after normalization: text content, `developer` folded into `system`. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_calls?: ToolCall[]
  tool_call_id?: string
}

/**
 * A conversation with its tools and tool rules: what the chat template renders, and what every
 * endpoint that translates to chat (Responses, Messages) comes down to.
 */
export interface ChatConversation {
  messages: ChatMessage[]
  tools: ChatTool[]
  toolChoice: ToolChoice | undefined
  parallelToolCalls: boolean | undefined
}

/** The request as the rest of the gateway sees it: defaults applied, aliases resolved. */
export interface ChatCompletionRequest extends ChatConversation {
  model: string
  stream: boolean
  includeUsage: boolean
  /** What the client asked for; planning lowers or defaults it. */
  maxTokens: number | undefined
  user: string | undefined
  /**
   * Fields the contract does not name (temperature, top_p, stop, seed…). Mortar ignores them, but
   * a deployment that forwards to a model server passes them on as sent.
   */
  extraFields: Record<string, unknown>
}

const CONTRACT_FIELDS = new Set([
  'model',
  'messages',
  'stream',
  'stream_options',
  'max_tokens',
  'max_completion_tokens',
  'user',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
])

function extraFieldsOf(raw: unknown): Record<string, unknown> {
  const extra: Record<string, unknown> = {}
  if (typeof raw !== 'object' || raw === null) return extra
  for (const [key, value] of Object.entries(raw)) if (!CONTRACT_FIELDS.has(key)) extra[key] = value
  return extra
}

/** What the caller's dialect decides for a request that leaves a field out. */
export interface RequestDefaults {
  /** `stream` when it is left out: true in the Mortar dialect, false in the OpenAI one. */
  stream: boolean
}

/** The Mortar dialect's own defaults: it streams unless told otherwise (docs/api-decisions.md#dialects). */
export const MORTAR_REQUEST_DEFAULTS: RequestDefaults = { stream: true }

/**
 * A message as the rest of the gateway reads it: a developer message is a system one, and an
 * empty list of tool calls none. A message that is so already is taken as it is — the fast
 * path's output for a remembered element is then the same object turn after turn, and what is
 * worked out from it (the prompt's count) can be kept with it.
 */
function normalizedMessage(message: ChatCompletionRequestBody['messages'][number]): ChatMessage {
  if (message.role !== 'developer' && message.content !== undefined && (message.tool_calls === undefined || message.tool_calls.length > 0)) return message as ChatMessage
  const normalized: ChatMessage = {
    role: message.role === 'developer' ? 'system' : message.role,
    content: message.content ?? null,
  }
  if (message.tool_calls !== undefined && message.tool_calls.length > 0) normalized.tool_calls = message.tool_calls
  if (message.tool_call_id !== undefined) normalized.tool_call_id = message.tool_call_id
  return normalized
}

export function normalizeChatRequest(
  body: ChatCompletionRequestBody,
  raw?: unknown,
  defaults: RequestDefaults = MORTAR_REQUEST_DEFAULTS,
): ChatCompletionRequest {
  return {
    model: body.model ?? DEFAULT_MODEL_ID,
    messages: body.messages.map(normalizedMessage),
    stream: body.stream ?? defaults.stream,
    includeUsage: body.stream_options?.include_usage ?? false,
    maxTokens: body.max_tokens ?? body.max_completion_tokens,
    user: body.user,
    tools: body.tools ?? [],
    toolChoice: body.tool_choice,
    parallelToolCalls: body.parallel_tool_calls,
    extraFields: extraFieldsOf(raw),
  }
}

export interface RequestValidationIssue {
  /** The field, written as a client would: `messages[2].content`. */
  param: string | null
  message: string
}

export { formatParamPath }

/** Validate a parsed JSON body; the first issue is what a client gets told. */
export function parseChatRequest(
  json: unknown,
  defaults: RequestDefaults = MORTAR_REQUEST_DEFAULTS,
): { ok: true; request: ChatCompletionRequest } | { ok: false; issue: RequestValidationIssue } {
  const simple = parseSimpleChatRequest(json)
  if (simple !== undefined) return { ok: true, request: normalizeChatRequest(simple, json, defaults) }
  const result = chatCompletionRequestSchema.safeParse(json)
  if (result.success) return { ok: true, request: normalizeChatRequest(result.data, json, defaults) }
  const first = firstIssue(result.error)
  return { ok: false, issue: { param: first.param, message: invalidFieldMessage(first) } }
}
