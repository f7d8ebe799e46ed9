import { z } from 'zod'
import { DEFAULT_MODEL_ID, MAX_MESSAGES, MAX_TOOLS, optional, positiveWholeNumber, TOOL_NAME_PATTERN } from './chat-request'
import { ElementResults, NOTHING_UNCHANGING, parseInParts, type Parsed, type Unchanging } from './element-results'
import { simpleResponsesFields } from './responses-fields-fast-path'
import { contentText, simpleInputItem } from './responses-item-fast-path'

/**
 * The request contract of POST /v1/responses (OpenAI's Responses API), as far as Mortar serves it:
 * text in and out, function tools, their calls and results. What it does with the rest is in
 * docs/responses.md. Types are inferred from these schemas; unknown fields are stripped from the
 * parsed body (a model server that speaks the API natively gets the body as sent).
 *
 * Optional fields accept `null` as "absent", as the API does.
 */

export const MAX_INPUT_ITEMS = MAX_MESSAGES

const text = z.string({ error: 'must be a string' })

const contentSchema = z.union(
  [
    z.string(),
    z.array(z.unknown()).transform(contentText),
  ],
  { error: 'must be a string or an array of content parts' },
)

const messageItem = z.object({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer'], {
    error: "must be one of 'user', 'assistant', 'system' or 'developer'",
  }),
  content: contentSchema,
})

const functionCallItem = z.object({
  type: z.literal('function_call'),
  call_id: text,
  name: text,
  arguments: z.string({ error: 'must be a string of JSON text' }),
})

const functionCallOutputItem = z.object({
  type: z.literal('function_call_output'),
  call_id: text,
  output: contentSchema,
})

/** Reasoning the model did in an earlier turn. Chat completions has no place for it: it is dropped. */
const reasoningItem = z.object({ type: z.literal('reasoning') })

/**
 * A reference to an item the server stored. Mortar stores none; a reference to reasoning (`rs_…`,
 * which the AI SDK sends for its earlier turns) is dropped like reasoning itself, any other is
 * refused, saying to send the item whole.
 */
const itemReference = z.object({ type: z.literal('item_reference'), id: text })

const SERVED_ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference']

const inputItem = z.unknown().transform((item, ctx): ResponsesInputItem | typeof z.NEVER => {
  if (typeof item !== 'object' || item === null || Array.isArray(item)) {
    ctx.addIssue({ code: 'custom', message: 'must be an object' })
    return z.NEVER
  }
  const type = (item as { type?: unknown }).type ?? 'message'
  const schema =
    type === 'message'
      ? messageItem
      : type === 'function_call'
        ? functionCallItem
        : type === 'function_call_output'
          ? functionCallOutputItem
          : type === 'reasoning'
            ? reasoningItem
            : type === 'item_reference'
              ? itemReference
              : undefined
  if (schema === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: ['type'],
      message: `is ${JSON.stringify(type)}, which Mortar does not serve: input items are ${SERVED_ITEM_TYPES.map((t) => `'${t}'`).join(', ')}`,
    })
    return z.NEVER
  }
  const parsed = schema.safeParse(item)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message })
    return z.NEVER
  }
  const value = parsed.data
  if (value.type === 'item_reference' && !value.id.startsWith('rs_')) {
    ctx.addIssue({
      code: 'custom',
      path: ['id'],
      message:
        'refers to a stored item, and Mortar stores none: send the item itself (with the AI SDK, providerOptions.openai.store: false)',
    })
    return z.NEVER
  }
  return { ...value, type: value.type ?? 'message' } as ResponsesInputItem
})

const functionTool = z.object(
  {
    type: z.literal('function'),
    name: z
      .string({ error: 'must be a string' })
      .regex(TOOL_NAME_PATTERN, { error: 'must be 1 to 64 letters, digits, underscores or dashes' }),
    description: optional(text),
    parameters: optional(z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' })),
    strict: optional(z.boolean({ error: 'must be a boolean' })),
  },
  { error: 'must be an object' },
)

/**
 * Tools: function tools are served; any other kind (web_search, file_search, namespace, custom,
 * local_shell…) is a tool the API's own server runs, which neither the scripted model nor a chat
 * model server has. They are left out of what the model sees rather than refused, because agents
 * such as Codex CLI always send a few (web_search among them) and work without them.
 */
const toolSchema = z.unknown().transform((tool, ctx): ResponsesFunctionTool | { type: string; ignored: true } | typeof z.NEVER => {
  if (typeof tool !== 'object' || tool === null || typeof (tool as { type?: unknown }).type !== 'string') {
    ctx.addIssue({ code: 'custom', message: 'must be an object with a `type`' })
    return z.NEVER
  }
  const type = (tool as { type: string }).type
  if (type !== 'function') return { type, ignored: true }
  const parsed = functionTool.safeParse(tool)
  if (!parsed.success) {
    for (const issue of parsed.error.issues) ctx.addIssue({ code: 'custom', path: issue.path, message: issue.message })
    return z.NEVER
  }
  return parsed.data
})

const toolChoiceSchema = z.union(
  [
    z.enum(['auto', 'none', 'required']),
    z.object({ type: z.literal('function'), name: text }),
    z.object({
      type: z.literal('allowed_tools'),
      mode: z.enum(['auto', 'required'], { error: "must be 'auto' or 'required'" }),
      tools: z.array(z.object({ type: z.string(), name: z.string().optional() }).loose(), { error: 'must be an array' }),
    }),
  ],
  {
    error:
      "must be 'auto', 'none', 'required', {\"type\": \"function\", \"name\": …} or {\"type\": \"allowed_tools\", …}: Mortar serves function tools only",
  },
)

const textFormatSchema = z.union([
  z.object({ type: z.literal('text') }),
  z.object({ type: z.literal('json_object') }),
  z.object({
    type: z.literal('json_schema'),
    name: optional(text),
    schema: z.record(z.string(), z.unknown(), { error: 'must be a JSON Schema object' }),
    description: optional(text),
    strict: optional(z.boolean({ error: 'must be a boolean' })),
  }),
])

/**
 * The body's fields, with the schemas of an input item and a tool given (the contract's own, or
 * `z.unknown()` where they are checked one by one: `parsedInParts`).
 */
const fieldsOf = <I extends z.ZodType, T extends z.ZodType>(item: I, tool: T) => ({
  model: optional(text),
  // A string is one user message; taking it as that list before validating keeps an item's
  // problem named at its place (`input[2].call_id`) instead of at a union's `input`.
  input: z.preprocess(
    (input) => (typeof input === 'string' ? [{ type: 'message', role: 'user', content: input }] : input),
    z
      .array(item, { error: 'is required: a string or an array of input items' })
      .max(MAX_INPUT_ITEMS, { error: `must have at most ${MAX_INPUT_ITEMS} items` }),
  ),
  instructions: optional(text),
  stream: optional(z.boolean({ error: 'must be a boolean' })),
  store: optional(z.boolean({ error: 'must be a boolean' })),
  max_output_tokens: optional(positiveWholeNumber),
  tools: optional(z.array(tool, { error: 'must be an array of tools' }).max(MAX_TOOLS, { error: `must have at most ${MAX_TOOLS} tools` })),
  tool_choice: optional(toolChoiceSchema),
  parallel_tool_calls: optional(z.boolean({ error: 'must be a boolean' })),
  previous_response_id: optional(text),
  conversation: optional(z.unknown()),
  prompt: optional(z.unknown()),
  user: optional(text),
  prompt_cache_key: optional(text),
  temperature: optional(z.number({ error: 'must be a number' })),
  top_p: optional(z.number({ error: 'must be a number' })),
  text: optional(z.object({ format: optional(textFormatSchema) }, { error: 'must be an object' })),
  reasoning: optional(
    z.object({ effort: optional(text), summary: optional(text) }, { error: 'must be an object' }),
  ),
})

const BODY_ERROR = { error: 'The request body must be a JSON object' }

type RequestIssue = { path: PropertyKey[]; message: string }

/** What is wrong across fields: what Mortar cannot serve, tools named twice, a choice of no tool. */
function requestIssues(body: ResponsesRequestBody): RequestIssue[] {
  const issues: RequestIssue[] = []
  // Mortar keeps no responses, so a conversation is always sent whole (Codex CLI does: store: false).
  if (body.previous_response_id !== undefined) {
    issues.push({
      path: ['previous_response_id'],
      message: 'is not supported: Mortar stores no responses, so send the whole conversation in `input`',
    })
  }
  if (body.conversation !== undefined) {
    issues.push({
      path: ['conversation'],
      message: 'is not supported: Mortar stores no conversations, so send the whole conversation in `input`',
    })
  }
  // A stored prompt template (`prompt: {id, variables}`) lives on OpenAI's servers: answering
  // without it would be answering another question.
  if (body.prompt !== undefined) {
    issues.push({
      path: ['prompt'],
      message: 'is not supported: Mortar stores no prompts, so send the instructions and input themselves',
    })
  }
  const functions = (body.tools ?? []).filter(isFunctionTool)
  const names = new Set<string>()
  for (const [index, tool] of (body.tools ?? []).entries()) {
    if (!isFunctionTool(tool)) continue
    if (names.has(tool.name)) {
      issues.push({
        path: ['tools', index, 'name'],
        message: `duplicates the tool name '${tool.name}': each tool needs its own name`,
      })
    }
    names.add(tool.name)
  }
  const choice = body.tool_choice
  if (typeof choice === 'object' && choice.type === 'function' && !names.has(choice.name)) {
    issues.push({
      path: ['tool_choice', 'name'],
      message: `names '${choice.name}', which is not a function in \`tools\``,
    })
  }
  if (functions.length === 0 && (choice === 'required' || (typeof choice === 'object' && choice.type === 'allowed_tools' && choice.mode === 'required'))) {
    issues.push({ path: ['tool_choice'], message: 'requires a tool call, and `tools` has no function tool' })
  } else if (typeof choice === 'object' && choice.type === 'allowed_tools' && choice.mode === 'required') {
    // Only function tools are served: a required call of only other kinds could never be made.
    if (!choice.tools.some((tool) => tool.type === 'function' && tool.name !== undefined && names.has(tool.name))) {
      issues.push({ path: ['tool_choice', 'tools'], message: 'requires a tool call, and names no function tool of `tools`: Mortar serves function tools only' })
    }
  }
  return issues
}

const responsesRequestFields = z.object(fieldsOf(inputItem, toolSchema), BODY_ERROR)

export const responsesRequestSchema = responsesRequestFields.superRefine((body, ctx) => {
  for (const issue of requestIssues(body)) ctx.addIssue({ code: 'custom', ...issue })
})

export interface ResponsesFunctionTool {
  type: 'function'
  name: string
  description?: string | undefined
  parameters?: Record<string, unknown> | undefined
  strict?: boolean | undefined
}

export type ResponsesInputItem =
  | { type: 'message'; role: 'user' | 'assistant' | 'system' | 'developer'; content: string }
  | { type: 'function_call'; call_id: string; name: string; arguments: string }
  | { type: 'function_call_output'; call_id: string; output: string }
  | { type: 'reasoning' }
  | { type: 'item_reference'; id: string }

export type ResponsesRequestBody = z.output<typeof responsesRequestFields>
export type ResponsesToolChoice = NonNullable<ResponsesRequestBody['tool_choice']>
export type ResponsesTextFormat = NonNullable<NonNullable<ResponsesRequestBody['text']>['format']>

function isFunctionTool(tool: ResponsesFunctionTool | { type: string; ignored: true }): tool is ResponsesFunctionTool {
  return !('ignored' in tool)
}

/** The request as the gateway sees it: defaults applied, input as items, tools split into served and ignored. */
export interface ResponsesRequest {
  model: string
  instructions: string | undefined
  input: ResponsesInputItem[]
  /** `stream` defaults to false, in every dialect: it is chat completions' Mortar dialect alone that streams by default. */
  stream: boolean
  store: boolean | undefined
  maxOutputTokens: number | undefined
  tools: ResponsesFunctionTool[]
  /** The types of the tools left out (web_search, namespace…), in order, for the docs' "what is ignored". */
  ignoredToolTypes: string[]
  toolChoice: ResponsesToolChoice | undefined
  parallelToolCalls: boolean | undefined
  user: string | undefined
  /** The client's cache key (Codex CLI sends its session): a session name for replica affinity. */
  promptCacheKey: string | undefined
  temperature: number | undefined
  topP: number | undefined
  textFormat: ResponsesTextFormat | undefined
  reasoningEffort: string | undefined
}

export function normalizeResponsesRequest(body: ResponsesRequestBody): ResponsesRequest {
  const tools = body.tools ?? []
  return {
    model: body.model ?? DEFAULT_MODEL_ID,
    instructions: body.instructions,
    input: body.input,
    stream: body.stream ?? false,
    store: body.store,
    maxOutputTokens: body.max_output_tokens,
    tools: tools.filter(isFunctionTool),
    ignoredToolTypes: tools.filter((tool) => !isFunctionTool(tool)).map((tool) => tool.type),
    toolChoice: body.tool_choice,
    parallelToolCalls: body.parallel_tool_calls,
    user: body.user,
    promptCacheKey: body.prompt_cache_key,
    temperature: body.temperature,
    topP: body.top_p,
    textFormat: body.text?.format,
    reasoningEffort: body.reasoning?.effort,
  }
}

// The same body with input items and tools left unchecked, for `parsedInParts`.
export const responsesRequestRest = z.object(fieldsOf(z.unknown(), z.unknown()), BODY_ERROR)
const itemResults = new ElementResults(inputItem, simpleInputItem)
const toolResults = new ElementResults(toolSchema)

/**
 * What the whole schema gives for a valid body, found in parts: its other fields checked by hand
 * in the common forms (responses-fields-fast-path.ts), else by zod at once,
 * its input items and tools one by one, each unchanging one's output remembered
 * (element-results.ts), then the rules across fields. Undefined when any part does not pass: the
 * whole schema then words the first issue, as it always did.
 */
function parsedInParts(json: unknown, unchanging: Unchanging): ResponsesRequestBody | undefined {
  let value = simpleResponsesFields(json)
  if (value === undefined) {
    const parsed = responsesRequestRest.safeParse(json)
    if (!parsed.success) return undefined
    value = parsed.data as Record<string, unknown>
  }
  // The rest's own `input`: a string is already the list of its one message.
  const input = itemResults.all(value.input, unchanging)
  if (input === undefined) return undefined
  value.input = input
  if (value.tools !== undefined) {
    const tools = toolResults.all(value.tools, unchanging)
    if (tools === undefined) return undefined
    value.tools = tools
  }
  const body = value as ResponsesRequestBody
  return requestIssues(body).length === 0 ? body : undefined
}

/**
 * Validate a parsed JSON body; the first issue is what a client gets told. `unchanging` says which
 * of its input items and tools may have their outputs remembered (element-results.ts).
 */
export function parseResponsesRequest(json: unknown, unchanging: Unchanging = NOTHING_UNCHANGING): Parsed<ResponsesRequest> {
  const parsed = parseInParts(responsesRequestSchema, json, (body) => parsedInParts(body, unchanging))
  return parsed.ok ? { ok: true, request: normalizeResponsesRequest(parsed.request) } : parsed
}
