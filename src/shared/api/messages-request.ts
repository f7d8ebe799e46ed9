import { z } from 'zod'
import { MAX_MESSAGES, MAX_TOOL_CALLS, MAX_TOOLS, positiveWholeNumber } from './chat-request'
import { ElementResults, NOTHING_UNCHANGING, parseInParts, type Parsed, type Unchanging } from './element-results'
import { simpleMessagesFields } from './messages-fields-fast-path'
import { simpleMessagesMessage } from './messages-message-fast-path'

/**
 * The request contract of POST /v1/messages and POST /v1/messages/count_tokens: Anthropic's
 * Messages API, the fields Mortar reads (docs/messages.md). The gateway validates with these
 * schemas and every type below is inferred from them. Fields the contract does not name
 * (service_tier, container, cache_control…) are stripped here; a model server that has its own
 * /v1/messages gets the body exactly as the client sent it.
 */

/** Anthropic's own rule for tool names (longer than chat's 64: MCP tools are named `mcp__server__tool`). */
export const MESSAGES_TOOL_NAME_PATTERN = /^[A-Za-z0-9_-]{1,128}$/

const cacheControl = z.unknown().optional()

const textBlock = z.object({
  type: z.literal('text'),
  text: z.string({ error: 'must be a string' }),
  cache_control: cacheControl,
})

/** An image or a document: accepted, but carried only to a model server that has /v1/messages (docs/messages.md). */
const mediaBlock = z.object({
  type: z.enum(['image', 'document']),
  source: z.record(z.string(), z.unknown(), { error: 'must be an object' }),
  cache_control: cacheControl,
})

const toolUseBlock = z.object({
  type: z.literal('tool_use'),
  id: z.string({ error: 'must be a string' }),
  name: z.string({ error: 'must be a string' }),
  input: z.unknown(),
  cache_control: cacheControl,
})

const toolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: z.string({ error: 'must be a string' }),
  content: z
    .union([z.string(), z.array(z.discriminatedUnion('type', [textBlock, mediaBlock]))], {
      error: 'must be a string or an array of text and image blocks',
    })
    .optional(),
  is_error: z.boolean({ error: 'must be a boolean' }).optional(),
  cache_control: cacheControl,
})

const thinkingBlock = z.object({
  type: z.literal('thinking'),
  thinking: z.string({ error: 'must be a string' }),
  signature: z.string({ error: 'must be a string' }).optional(),
})

const redactedThinkingBlock = z.object({
  type: z.literal('redacted_thinking'),
  data: z.string({ error: 'must be a string' }),
})

const contentBlock = z.discriminatedUnion('type', [textBlock, mediaBlock, toolUseBlock, toolResultBlock, thinkingBlock, redactedThinkingBlock], {
  error: "must be a content block of type 'text', 'image', 'document', 'tool_use', 'tool_result', 'thinking' or 'redacted_thinking'",
})

const contentBlocks = z.array(contentBlock)

/**
 * A string or content blocks. Not a z.union: a union that fails names only itself, and a client
 * should be told which block is wrong (`messages[0].content[2].type`), not that the content is.
 */
const messageContent = z.unknown().transform((value, ctx): string | z.output<typeof contentBlocks> => {
  if (typeof value === 'string') return value
  if (!Array.isArray(value)) {
    ctx.addIssue({ code: 'custom', message: 'must be a string or an array of content blocks' })
    return z.NEVER
  }
  const blocks = contentBlocks.safeParse(value)
  if (blocks.success) return blocks.data
  for (const issue of blocks.error.issues) ctx.addIssue({ code: 'custom', message: issue.message, path: issue.path })
  return z.NEVER
})

const messageSchema = z
  .object(
    {
      // `system` turns are what SDK 1.x allows between the others; Mortar reads them as system messages in place.
      role: z.enum(['user', 'assistant', 'system'], { error: "must be 'user' or 'assistant'" }),
      content: messageContent,
    },
    { error: 'must be an object with `role` and `content`' },
  )
  .superRefine((message, ctx) => {
    if (typeof message.content === 'string') return
    message.content.forEach((block, index) => {
      const allowed =
        message.role === 'assistant'
          ? block.type !== 'tool_result' && block.type !== 'image' && block.type !== 'document'
          : message.role === 'user'
            ? block.type !== 'tool_use' && block.type !== 'thinking' && block.type !== 'redacted_thinking'
            : block.type === 'text'
      if (!allowed) {
        ctx.addIssue({ code: 'custom', path: ['content', index, 'type'], message: `'${block.type}' blocks do not belong in a${message.role === 'assistant' ? 'n' : ''} ${message.role} message` })
      }
    })
    const toolUses = message.content.filter((block) => block.type === 'tool_use').length
    if (toolUses > MAX_TOOL_CALLS) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: `must have at most ${MAX_TOOL_CALLS} tool_use blocks` })
    }
  })

const systemSchema = z.union([z.string(), z.array(textBlock)], { error: 'must be a string or an array of text blocks' })

const toolSchema = z.object(
  {
    // Server tools (web search, code execution, bash…) run at Anthropic; only custom tools exist here.
    type: z.literal('custom', { error: "must be 'custom': only client tools with an `input_schema` are supported" }).nullish(),
    name: z
      .string({ error: 'must be a string' })
      .regex(MESSAGES_TOOL_NAME_PATTERN, { error: 'must be 1 to 128 letters, digits, underscores or dashes' }),
    description: z.string({ error: 'must be a string' }).optional(),
    input_schema: z.record(z.string(), z.unknown(), { error: 'is required: a JSON Schema object' }),
    cache_control: cacheControl,
  },
  { error: 'must be an object' },
)

const toolChoiceSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('tool'), name: z.string({ error: 'must be a string' }), disable_parallel_tool_use: z.boolean().optional() }),
    z.object({ type: z.literal('none') }),
  ],
  { error: "must be {\"type\": \"auto\"}, {\"type\": \"any\"}, {\"type\": \"tool\", \"name\": …} or {\"type\": \"none\"}" },
)

const thinkingSchema = z.discriminatedUnion(
  'type',
  [
    z.object({ type: z.literal('enabled'), budget_tokens: positiveWholeNumber }),
    z.object({ type: z.literal('disabled') }),
    z.object({ type: z.literal('adaptive') }),
    z.object({ type: z.literal('between_tools') }),
  ],
  { error: "must be {\"type\": \"enabled\", \"budget_tokens\": …}, {\"type\": \"disabled\"} or {\"type\": \"adaptive\"}" },
)

const number = z.number({ error: 'must be a number' })

/**
 * What both endpoints read: the prompt, with the schemas of a message and a tool given (the
 * contract's own, or `z.unknown()` where they are checked one by one: `parseInParts`).
 */
const promptFieldsOf = <M extends z.ZodType, T extends z.ZodType>(message: M, tool: T) => ({
  model: z.string({ error: 'is required: the model to use' }).min(1, { error: 'is required: the model to use' }),
  system: systemSchema.optional(),
  messages: z
    .array(message, { error: 'is required: an array of messages' })
    .min(1, { error: 'must have at least 1 message' })
    .max(MAX_MESSAGES, { error: `must have at most ${MAX_MESSAGES} messages` }),
  tools: z
    .array(tool, { error: 'must be an array of tools' })
    .max(MAX_TOOLS, { error: `must have at most ${MAX_TOOLS} tools` })
    .optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: thinkingSchema.optional(),
})

const promptFields = promptFieldsOf(messageSchema, toolSchema)

type ToolsPart = { tools?: Array<{ name: string }> | undefined; tool_choice?: { type: string; name?: string } | undefined }

/** What is wrong between `tools` and `tool_choice`: names twice, a choice of no tool. */
function toolIssues(body: ToolsPart): { path: PropertyKey[]; message: string }[] {
  const issues: { path: PropertyKey[]; message: string }[] = []
  const seen = new Set<string>()
  ;(body.tools ?? []).forEach((tool, index) => {
    if (seen.has(tool.name)) issues.push({ path: ['tools', index, 'name'], message: `duplicates the tool name '${tool.name}': each tool needs its own name` })
    seen.add(tool.name)
  })
  const choice = body.tool_choice
  if (choice?.type === 'tool' && choice.name !== undefined && !seen.has(choice.name)) {
    issues.push({ path: ['tool_choice', 'name'], message: `names '${choice.name}', which is not in \`tools\`` })
  }
  if ((choice?.type === 'any' || choice?.type === 'tool') && seen.size === 0) issues.push({ path: ['tool_choice'], message: 'needs `tools`' })
  return issues
}

function checkTools(body: ToolsPart, ctx: z.RefinementCtx): void {
  for (const issue of toolIssues(body)) ctx.addIssue({ code: 'custom', ...issue })
}

/** The fields of POST /v1/messages beyond the prompt. */
const requestFields = {
  max_tokens: positiveWholeNumber,
  stream: z.boolean({ error: 'must be a boolean' }).optional(),
  stop_sequences: z.array(z.string({ error: 'must be a string' }), { error: 'must be an array of strings' }).optional(),
  temperature: number.min(0).max(1).optional(),
  top_p: number.min(0).max(1).optional(),
  top_k: positiveWholeNumber.optional(),
  metadata: z.object({ user_id: z.string({ error: 'must be a string' }).nullish() }, { error: 'must be an object' }).optional(),
}

const BODY_ERROR = { error: 'The request body must be a JSON object' }

export const messagesRequestSchema = z.object({ ...promptFields, ...requestFields }, BODY_ERROR).superRefine(checkTools)

export const countTokensRequestSchema = z.object(promptFields, BODY_ERROR).superRefine(checkTools)

export type MessagesRequest = z.output<typeof messagesRequestSchema>
export type CountTokensRequest = z.output<typeof countTokensRequestSchema>
/** What both endpoints share: the prompt as the model reads it. */
export type AnthropicPrompt = Pick<MessagesRequest, keyof typeof promptFields>
export type MessagesMessage = MessagesRequest['messages'][number]
export type MessagesContentBlock = Exclude<MessagesMessage['content'], string>[number]
export type MessagesTool = NonNullable<MessagesRequest['tools']>[number]
export type MessagesToolChoice = NonNullable<MessagesRequest['tool_choice']>

// The same bodies with messages and tools left unchecked, for `parsedInParts`.
const unchecked = promptFieldsOf(z.unknown(), z.unknown())
export const messagesRequestRest = z.object({ ...unchecked, ...requestFields }, BODY_ERROR)
export const countTokensRequestRest = z.object(unchecked, BODY_ERROR)
const messageResults = new ElementResults(messageSchema, simpleMessagesMessage)
const toolResults = new ElementResults(toolSchema)

/**
 * What the whole schema gives for a valid body, found in parts: its other fields checked by hand
 * when they are of the common forms (messages-fields-fast-path.ts), else by `rest`,
 * its messages and tools one by one, each unchanging one's output remembered (element-results.ts),
 * then the rule between tools and tool_choice. Undefined when any part does not pass: the whole
 * schema then words the first issue, as it always did.
 */
function parsedInParts<T>(rest: z.ZodType, json: unknown, unchanging: Unchanging): T | undefined {
  let value = simpleMessagesFields(json, rest === messagesRequestRest)
  if (value === undefined) {
    const parsed = rest.safeParse(json)
    if (!parsed.success) return undefined
    value = parsed.data as Record<string, unknown>
  }
  const body = json as { messages: unknown; tools?: unknown }
  const messages = messageResults.all(body.messages, unchanging)
  if (messages === undefined) return undefined
  value.messages = messages
  if (value.tools !== undefined) {
    const tools = toolResults.all(body.tools, unchanging)
    if (tools === undefined) return undefined
    value.tools = tools
  }
  return toolIssues(value as ToolsPart).length === 0 ? (value as T) : undefined
}

/**
 * Validate a POST /v1/messages body; the first issue is what a client gets told. `unchanging`
 * says which of its messages and tools may have their outputs remembered (element-results.ts).
 */
export const parseMessagesRequest = (json: unknown, unchanging: Unchanging = NOTHING_UNCHANGING): Parsed<MessagesRequest> =>
  parseInParts(messagesRequestSchema, json, (body) => parsedInParts<MessagesRequest>(messagesRequestRest, body, unchanging))

/** Validate a POST /v1/messages/count_tokens body. */
export const parseCountTokensRequest = (json: unknown): Parsed<CountTokensRequest> =>
  parseInParts(countTokensRequestSchema, json, (body) => parsedInParts<CountTokensRequest>(countTokensRequestRest, body, NOTHING_UNCHANGING))
