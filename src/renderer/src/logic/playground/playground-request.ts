import { z } from 'zod'
import { chatCompletionRequestSchema, formatParamPath } from '../../../../shared/api/chat-request'
import { firstIssue } from '../../../../shared/api/first-issue'
import { HeaderName, MortarHeader } from '../../../../shared/api/headers'
import { parseOptimizeHeader } from '../../../../shared/api/optimizer'
import type { AssembledReply } from '../inspector/assemble-reply'
import { errorMessage } from '../error-message'
import { oneOf } from '../one-of'

/**
 * The playground's form and how it becomes a request: the JSON body and the X-Mortar-* headers.
 * Validation is the gateway's own contract (chatCompletionRequestSchema) plus the header rules of
 * docs/api-decisions.md, so the form refuses exactly what the gateway would, before sending.
 */

export const PLAYGROUND_ROLES = ['user', 'assistant', 'tool'] as const
export type PlaygroundRole = (typeof PLAYGROUND_ROLES)[number]
/** The parallel_tool_calls menu: not sent, or sent as true or false. */
export const PARALLEL_TOOL_CALLS = ['', 'true', 'false'] as const

export interface PlaygroundMessage {
  role: PlaygroundRole
  content: string
  /** An assistant turn's tool calls, as JSON text (`[{id, type, function: {name, arguments}}]`); blank: none. */
  toolCalls?: string
  /** A tool turn's answer to which call (`tool_call_id`). */
  toolCallId?: string
}

export interface PlaygroundForm {
  model: string
  system: string
  messages: PlaygroundMessage[]
  /** Text of the input; blank leaves max_tokens out. */
  maxTokens: string
  /** Sampling, forwarded to model servers as sent (the scripted model ignores them); blank leaves each out. */
  temperature: string
  topP: string
  /** Stop sequences, one per line. */
  stop: string
  seed: string
  stream: boolean
  includeUsage: boolean
  /** A JSON array of tools; blank means no tools. */
  toolsJson: string
  /** '' leaves it out; 'auto' | 'none' | 'required'; or 'function:NAME'. */
  toolChoice: string
  parallelToolCalls: (typeof PARALLEL_TOOL_CALLS)[number]
  /** X-Mortar-Optimize: '' leaves the header out. */
  optimize: string
  /** X-Mortar-Tool-Select: '' or 'named'. */
  toolSelect: string
  /** X-Mortar-Session: '' leaves the header out. */
  session: string
  /** X-Mortar-Dedupe: '' or 'in-flight'. */
  dedupe: string
  idempotencyKey: string
}

export type PlaygroundField = keyof PlaygroundForm | 'form'

export interface FormProblem {
  field: PlaygroundField
  message: string
}

export interface BuiltRequest {
  body: Record<string, unknown>
  /** The X-Mortar-* and Idempotency-Key headers, as they will be sent. */
  headers: Record<string, string>
}

export const EXAMPLE_TOOLS_JSON = `[
  {
    "type": "function",
    "function": {
      "name": "get_weather",
      "description": "Current weather for a city",
      "parameters": {
        "type": "object",
        "properties": { "city": { "type": "string" } },
        "required": ["city"]
      }
    }
  }
]`

export function defaultPlaygroundForm(model = ''): PlaygroundForm {
  return {
    model,
    system: '',
    messages: [{ role: 'user', content: 'Hello, Mortar' }],
    maxTokens: '',
    temperature: '',
    topP: '',
    stop: '',
    seed: '',
    stream: true,
    includeUsage: true,
    toolsJson: '',
    toolChoice: '',
    parallelToolCalls: '',
    optimize: '',
    toolSelect: '',
    session: '',
    dedupe: '',
    idempotencyKey: '',
  }
}

export type ToolsParse = { ok: true; tools: unknown[]; names: string[] } | { ok: false; message: string }

/** The tools editor's text: blank, or a JSON array of function tools as the gateway accepts them. */
export function parseToolsJson(text: string): ToolsParse {
  if (text.trim() === '') return { ok: true, tools: [], names: [] }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (error) {
    return { ok: false, message: `Not JSON: ${errorMessage(error)}` }
  }
  if (!Array.isArray(value)) return { ok: false, message: 'Tools must be a JSON array of {"type": "function", "function": {…}} objects.' }
  const check = chatCompletionRequestSchema.safeParse({ messages: [{ role: 'user', content: '' }], tools: value })
  if (!check.success) {
    const { param, detail } = firstIssue(check.error, { within: 'tools' })
    return { ok: false, message: `${param === null ? 'tools' : `tools${param.startsWith('[') ? '' : '.'}${param}`} ${detail}` }
  }
  const names = (check.data.tools ?? []).map((tool) => tool.function.name)
  return { ok: true, tools: value, names }
}

/** One turn as the API has it: an assistant's tool calls and a tool result's call ID included. */
function messageBody(message: PlaygroundMessage, index: number, problems: FormProblem[]): Record<string, unknown> {
  if (message.role === 'tool') return { role: 'tool', tool_call_id: message.toolCallId ?? '', content: message.content }
  const calls = (message.toolCalls ?? '').trim()
  if (message.role !== 'assistant' || calls === '') return { role: message.role, content: message.content }
  let toolCalls: unknown
  try {
    toolCalls = JSON.parse(calls)
  } catch (error) {
    problems.push({ field: 'messages', message: `Turn ${index + 1}: its tool calls are not JSON (${errorMessage(error)}).` })
  }
  // A turn of tool calls only has no text: content null, as the API wants it.
  return { role: 'assistant', content: message.content === '' ? null : message.content, tool_calls: toolCalls }
}

const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/

function toolChoiceValue(choice: string): unknown {
  if (choice.startsWith('function:')) return { type: 'function', function: { name: choice.slice('function:'.length) } }
  return choice
}

/** Which form field a contract issue at `path` (in the built body) belongs to. */
function fieldOfPath(path: ReadonlyArray<PropertyKey>): PlaygroundField {
  switch (path[0]) {
    case 'model':
      return 'model'
    case 'messages':
      return 'messages'
    case 'max_tokens':
      return 'maxTokens'
    case 'temperature':
      return 'temperature'
    case 'top_p':
      return 'topP'
    case 'stop':
      return 'stop'
    case 'seed':
      return 'seed'
    case 'tools':
      return 'toolsJson'
    case 'tool_choice':
      return 'toolChoice'
    case 'parallel_tool_calls':
      return 'parallelToolCalls'
    default:
      return 'form'
  }
}

export function buildPlaygroundRequest(form: PlaygroundForm): { ok: true; request: BuiltRequest } | { ok: false; problems: FormProblem[] } {
  const problems: FormProblem[] = []
  const body: Record<string, unknown> = {}
  if (form.model !== '') body.model = form.model
  body.messages = [
    ...(form.system.trim() !== '' ? [{ role: 'system', content: form.system }] : []),
    ...form.messages.map((m, i) => messageBody(m, i, problems)),
  ]
  if (form.messages.length === 0) problems.push({ field: 'messages', message: 'Add at least one message.' })
  if (form.maxTokens.trim() !== '') {
    const n = Number(form.maxTokens.trim())
    if (!Number.isInteger(n) || n <= 0) problems.push({ field: 'maxTokens', message: 'max_tokens must be a positive whole number.' })
    else body.max_tokens = n
  }
  const number = (text: string, field: 'temperature' | 'topP' | 'seed', name: string, check: (n: number) => boolean, rule: string) => {
    if (text.trim() === '') return
    const n = Number(text.trim())
    if (!Number.isFinite(n) || !check(n)) problems.push({ field, message: `${name} must be ${rule}.` })
    else body[name] = n
  }
  number(form.temperature, 'temperature', 'temperature', (n) => n >= 0 && n <= 2, 'a number from 0 to 2')
  number(form.topP, 'topP', 'top_p', (n) => n >= 0 && n <= 1, 'a number from 0 to 1')
  number(form.seed, 'seed', 'seed', Number.isInteger, 'a whole number')
  const stops = form.stop.split('\n').filter((line) => line !== '')
  if (stops.length > 4) problems.push({ field: 'stop', message: 'stop takes at most 4 sequences (one per line).' })
  else if (stops.length > 0) body.stop = stops
  body.stream = form.stream
  if (form.stream) body.stream_options = { include_usage: form.includeUsage }

  const tools = parseToolsJson(form.toolsJson)
  if (!tools.ok) problems.push({ field: 'toolsJson', message: tools.message })
  else if (tools.tools.length > 0) body.tools = tools.tools
  if (form.toolChoice !== '') body.tool_choice = toolChoiceValue(form.toolChoice)
  if (form.parallelToolCalls !== '') body.parallel_tool_calls = form.parallelToolCalls === 'true'

  const headers: Record<string, string> = {}
  if (form.optimize.trim() !== '') {
    const parsed = parseOptimizeHeader(form.optimize)
    if (!parsed.ok) problems.push({ field: 'optimize', message: parsed.message })
    headers[HeaderName.optimize] = form.optimize.trim()
  }
  if (form.toolSelect !== '') {
    headers[HeaderName.toolSelect] = form.toolSelect
    if (!form.toolChoice.startsWith('function:')) {
      problems.push({ field: 'toolSelect', message: 'Named tool selection needs tool_choice to name a function.' })
    }
  }
  if (form.session.trim() !== '') headers[HeaderName.session] = form.session.trim()
  if (form.dedupe !== '') {
    headers[HeaderName.dedupe] = form.dedupe
    if (form.stream) problems.push({ field: 'dedupe', message: 'In-flight dedupe needs stream off.' })
    if (!IDEMPOTENCY_KEY_PATTERN.test(form.idempotencyKey)) {
      problems.push({ field: 'idempotencyKey', message: 'An Idempotency-Key of 1 to 128 letters, digits, ., _, - or : is required.' })
    }
  }
  if (form.idempotencyKey !== '') headers[HeaderName.idempotencyKey] = form.idempotencyKey

  // Tools problems are reported above, in the tools editor's own words.
  if (tools.ok) {
    const check = chatCompletionRequestSchema.safeParse(body)
    if (!check.success) {
      for (const issue of check.error.issues) {
        const field = fieldOfPath(issue.path)
        const param = formatParamPath(issue.path)
        problems.push({ field, message: param === null ? issue.message : `${param} ${issue.message}` })
      }
    }
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, request: { body, headers } }
}

/** The form's header fields, each with the header it fills. */
const HEADER_FIELDS = [
  ['optimize', MortarHeader.optimize],
  ['toolSelect', MortarHeader.toolSelect],
  ['session', MortarHeader.session],
  ['dedupe', MortarHeader.dedupe],
  ['idempotencyKey', MortarHeader.idempotencyKey],
] as const satisfies ReadonlyArray<readonly [keyof PlaygroundForm, string]>

/** The body fields formFromRequest reads into the form; any other is not carried. */
export const FORM_BODY_FIELDS: ReadonlySet<string> = new Set([
  'model',
  'messages',
  'max_tokens',
  'temperature',
  'top_p',
  'stop',
  'seed',
  'stream',
  'stream_options',
  'tools',
  'tool_choice',
  'parallel_tool_calls',
])

/**
 * What "edit and resend" reads of a request body: any client's, so every field is optional and
 * one of an unexpected type reads as absent rather than making the body unreadable.
 */
const resentBodySchema = z.looseObject({
  messages: z
    .array(z.looseObject({ role: z.unknown().optional(), content: z.unknown().optional(), tool_calls: z.unknown().optional(), tool_call_id: z.unknown().optional() }).catch({}))
    .catch([]),
  stream_options: z.looseObject({ include_usage: z.unknown() }).nullish().catch(undefined),
  tool_choice: z.union([z.string(), z.looseObject({ function: z.looseObject({ name: z.unknown() }).nullish().catch(undefined) })]).nullish().catch(undefined),
})

/**
 * The form that sends `body` with `headers` again: "edit and resend". The system messages are
 * joined into the system prompt; assistant tool calls and tool results are kept as turns.
 */
export function formFromRequest(body: Record<string, unknown>, headers: Record<string, string>): PlaygroundForm {
  const form = defaultPlaygroundForm(typeof body.model === 'string' ? body.model : '')
  const { messages, stream_options: options, tool_choice: choice } = resentBodySchema.parse(body)
  const text = (content: unknown) => (typeof content === 'string' ? content : '')
  form.system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => text(m.content))
    .join('\n\n')
  form.messages = messages
    .flatMap((m): PlaygroundMessage[] => {
      const role = typeof m.role === 'string' ? oneOf(PLAYGROUND_ROLES, m.role) : undefined
      if (role === undefined) return []
      const turn: PlaygroundMessage = { role, content: text(m.content) }
      const calls = m.tool_calls
      if (role === 'assistant' && Array.isArray(calls) && calls.length > 0) turn.toolCalls = JSON.stringify(calls, null, 2)
      const callId = m.tool_call_id
      if (role === 'tool') turn.toolCallId = typeof callId === 'string' ? callId : ''
      return [turn]
    })
  form.maxTokens = typeof body.max_tokens === 'number' ? String(body.max_tokens) : ''
  form.temperature = typeof body.temperature === 'number' ? String(body.temperature) : ''
  form.topP = typeof body.top_p === 'number' ? String(body.top_p) : ''
  form.seed = typeof body.seed === 'number' ? String(body.seed) : ''
  form.stop = typeof body.stop === 'string' ? body.stop : Array.isArray(body.stop) ? body.stop.filter((x) => typeof x === 'string').join('\n') : ''
  form.stream = body.stream !== false
  form.includeUsage = options?.include_usage === true
  form.toolsJson = Array.isArray(body.tools) && body.tools.length > 0 ? JSON.stringify(body.tools, null, 2) : ''
  form.toolChoice =
    typeof choice === 'string' ? choice : typeof choice?.function?.name === 'string' ? `function:${choice.function.name}` : ''
  form.parallelToolCalls = body.parallel_tool_calls === true ? 'true' : body.parallel_tool_calls === false ? 'false' : ''
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]))
  for (const [field, name] of HEADER_FIELDS) form[field] = lower[name] ?? ''
  return form
}

/**
 * "Append the reply and continue": the conversation that was sent, the reply as its next assistant
 * turn (tool calls included), and then the turn to fill in — a tool result for each call the model
 * made, or else the user's next message.
 */
export function continueConversation(
  body: Record<string, unknown>,
  headers: Record<string, string>,
  reply: Pick<AssembledReply, 'content' | 'toolCalls'>,
): PlaygroundForm {
  const form = formFromRequest(body, headers)
  const calls = reply.toolCalls.map((call, i) => ({
    id: call.id ?? `call_${i}`,
    type: 'function',
    function: { name: call.name, arguments: call.arguments },
  }))
  const assistant: PlaygroundMessage = { role: 'assistant', content: reply.content }
  if (calls.length > 0) assistant.toolCalls = JSON.stringify(calls, null, 2)
  const next: PlaygroundMessage[] =
    calls.length > 0 ? calls.map((call) => ({ role: 'tool', toolCallId: call.id, content: '' })) : [{ role: 'user', content: '' }]
  form.messages = [...form.messages, assistant, ...next]
  return form
}
