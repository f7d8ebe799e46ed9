// The request bodies the benchmark sends, by shape. Each shape is a function of the request's
// number n, so every load-generator process sends the same sequence; text is generated from a
// fixed seed (English and TypeScript words, as agent prompts carry), never one phrase repeated,
// which a tokenizer or a compressor would make unrealistically cheap.
//
//   default   one system + one user message (~900 B), max_tokens 256; the user message is unique per
//             request (a counter). The shape of the main table.
//   witness   the independent harness of docs/benchmark.md#two-shapes: system + user ~340 B,
//             max_tokens 16, the user message unique per request.
//   stable    a system prompt of `bytes` (minus the rest), byte-identical on every request, and a short
//             unique user message: an IDE tool's fixed instructions.
//   growing   an agent's conversation at about `bytes` (4 KB and up): a fixed system prompt of about
//             bytes/2 and one tool definition, then turns (an assistant tool call and its tool result,
//             bytes/64 each but at least 320 B) unique to the conversation. Each request is the
//             previous one plus one turn; a conversation runs from 0.75 × bytes to 1.25 × bytes (at
//             most 32 turns), then the next one starts. So one request per conversation brings a
//             quarter of its prompt new and the others one turn: what an agent sends on every step.
//
// Every shape is written for one of three APIs (`api`): Chat Completions (the default), the
// Responses API (`input` items: messages, function_call, function_call_output; max_output_tokens)
// and Anthropic's Messages (`system`, tool_use and tool_result blocks): the same conversation, so
// the same prompt for the model, in each API's shape.
import type { Api, Prompt, Shape } from './types'

export const MODEL = 'Qwen/Qwen2.5-7B-Instruct'
export const SHAPES: Shape[] = ['default', 'witness', 'stable', 'growing']

const WORDS = (
  'the a of to and in is for that with on as it by this be are from at or an not which have you can we if ' +
  'function const let return await async export import interface type string number boolean undefined null ' +
  'request response server client stream model token prompt message error value result file path test ' +
  'config option handler buffer socket header body schema parse render count cache session window reply ' +
  'src/gateway/pipeline/plan-tokens.ts src/shared/api/chat-request.ts => { } ( ) [ ] ; : , . = == !== + - * ' +
  '0 1 2 16 64 128 1024 4096 true false new this.map .get( .set( .push( if else for while const x = y'
).split(' ')

/** A deterministic pseudo-random text of `length` characters (ASCII), from `seed`. */
export function text(length: number, seed: number): string {
  let state = seed >>> 0 || 1
  const next = () => {
    // mulberry32
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  let out = ''
  let line = 0
  while (out.length < length) {
    const word = WORDS[Math.floor(next() * WORDS.length)] ?? ''
    out += word
    line += word.length + 1
    if (line > 72) {
      out += '\n'
      line = 0
    } else out += ' '
  }
  return out.slice(0, length)
}

/** A chat request as the benchmark writes it (Chat Completions' shape). */
interface Message {
  role: 'system' | 'user' | 'assistant' | 'tool'
  content: string | null
  tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[]
  tool_call_id?: string
}
interface Payload {
  model: string
  messages: Message[]
  max_tokens: number
  tools?: typeof TOOLS
  stream?: boolean
  stream_options?: { include_usage: boolean }
}

const DEFAULT_SYSTEM =
  'You are a careful assistant for a small software team. Answer in plain English, keep replies short, ' +
  'name the files you refer to, and say when you are unsure rather than guessing. Prefer standard library ' +
  'solutions and mention trade-offs in one sentence.'
const DEFAULT_USER =
  'We run a TypeScript service that forwards chat requests to a model server and streams the reply back ' +
  'as server-sent events. Under load the p99 latency grows and memory climbs slowly. The handler parses ' +
  'the JSON body, validates it with a schema, counts the prompt tokens, then opens a kept-alive connection ' +
  'upstream and re-encodes every chunk. Which of these steps is most likely to cost the most per request, ' +
  'and how would you confirm it with a CPU profile before changing any code? Keep it to five bullet points.'
const WITNESS_SYSTEM = 'You are a helpful assistant. Answer briefly and precisely.'
const WITNESS_USER = 'Explain in two sentences what a reverse proxy does, and why one would put it in front of a local model server. Keep it plain.'

const TOOLS = [
  {
    type: 'function',
    function: {
      name: 'read_file',
      description: 'Read a file of the workspace and return its text.',
      parameters: { type: 'object', properties: { path: { type: 'string', description: 'relative path' } }, required: ['path'] },
    },
  },
]

/**
 * `(n) => body` for a prompt spec `{ shape, bytes }`. The body is a JSON string; `stream` adds
 * `stream: true`, asks for usage as IDE tools do, and max_tokens ≥ 256.
 */
export function bodyMaker({ shape = 'default', bytes = 0 }: Prompt = {}, stream = false, api: Api = 'chat'): (n: number) => string {
  const finish = (payload: Payload): string => {
    payload.stream = stream
    // Streams ask for room for the fake server's whole reply (64 deltas), which it always sends.
    if (stream) Object.assign(payload, { stream_options: { include_usage: true }, max_tokens: Math.max(payload.max_tokens, 256) })
    return JSON.stringify(api === 'responses' ? asResponses(payload) : api === 'messages' ? asMessages(payload) : payload)
  }
  switch (shape) {
    case 'default':
      return (n) =>
        finish({ model: MODEL, messages: [{ role: 'system', content: DEFAULT_SYSTEM }, { role: 'user', content: `${DEFAULT_USER} (request ${n})` }], max_tokens: 256 })
    case 'witness':
      return (n) =>
        finish({ model: MODEL, messages: [{ role: 'system', content: WITNESS_SYSTEM }, { role: 'user', content: `${WITNESS_USER} (${n})` }], max_tokens: 16 })
    case 'stable': {
      const user = 'Summarise what changed in the files above, in three bullet points.'
      // The JSON escapes of the text's newlines count too: one in ~75 characters.
      const system = text(Math.max(64, Math.round((bytes - user.length - 130) / 1.013)), 7)
      return (n) => finish({ model: MODEL, messages: [{ role: 'system', content: system }, { role: 'user', content: `${user} (${n})` }], max_tokens: 16 })
    }
    case 'growing':
      return growing(bytes, finish)
    default:
      throw new Error(`unknown prompt shape ${String(shape)}`)
  }
}

function growing(bytes: number, finish: (payload: Payload) => string): (n: number) => string {
  const system = text(Math.max(64, Math.round(bytes / 2) - 400), 11)
  const task = (conversation: number): Message => ({ role: 'user', content: `Task ${conversation}: find where the prompt is counted and make it cheaper.` })
  const turnSize = Math.max(320, Math.round(bytes / 64))
  const turn = (conversation: number, t: number, contentLength: number): Message[] => {
    const id = `call_${conversation}_${t}`
    const path = `src/c${conversation}/file-${t}.ts`
    return [
      { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path }) } }] },
      { role: 'tool', tool_call_id: id, content: `// ${path}\n` + text(contentLength, conversation * 100_003 + t) },
    ]
  }
  // Calibrated on the serialized size, so that a turn is `turnSize` bytes of the body and a
  // conversation starts at 0.75 × bytes.
  const framing = JSON.stringify(turn(0, 0, 0)).length + 2
  const contentLength = Math.max(16, turnSize - framing)
  const base = JSON.stringify({ model: MODEL, messages: [{ role: 'system', content: system }, task(0)], tools: TOOLS, max_tokens: 16, stream: false }).length
  const perConversation = Math.min(32, Math.max(4, Math.round(bytes / 2 / turnSize)))
  const startTurns = Math.max(1, Math.round((0.75 * bytes - base) / turnSize))
  return (n) => {
    const conversation = Math.floor(n / perConversation)
    const turns = startTurns + (n % perConversation)
    const messages: Message[] = [{ role: 'system', content: system }, task(conversation)]
    for (let t = 0; t < turns; t++) messages.push(...turn(conversation, t, contentLength))
    return finish({ model: MODEL, messages, tools: TOOLS, max_tokens: 16 })
  }
}

/**
 * The conversation as a Responses API request, as Codex CLI sends one: the leading system prompt as
 * `instructions` (which the reply's response objects repeat), the turns as `input` items.
 */
function asResponses(payload: Payload): object {
  const [first, ...rest] = payload.messages
  const instructions = first?.role === 'system' ? (first.content ?? undefined) : undefined
  const input: object[] = []
  for (const m of instructions === undefined ? payload.messages : rest) {
    if (m.role === 'tool') input.push({ type: 'function_call_output', call_id: m.tool_call_id, output: m.content })
    else if (m.tool_calls !== undefined) for (const c of m.tool_calls) input.push({ type: 'function_call', call_id: c.id, name: c.function.name, arguments: c.function.arguments })
    else input.push({ role: m.role, content: m.content })
  }
  const tools = payload.tools?.map((t) => ({ type: 'function', ...t.function }))
  return { model: payload.model, ...(instructions !== undefined ? { instructions } : {}), input, ...(tools ? { tools } : {}), max_output_tokens: payload.max_tokens, stream: payload.stream }
}

/** The conversation as an Anthropic Messages request: the system prompt apart, tool calls and results as blocks. */
function asMessages(payload: Payload): object {
  const [first, ...rest] = payload.messages
  const messages: object[] = []
  for (const m of rest) {
    if (m.role === 'tool') messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: m.tool_call_id, content: m.content }] })
    else if (m.tool_calls !== undefined) {
      const blocks = m.tool_calls.map((c) => ({ type: 'tool_use', id: c.id, name: c.function.name, input: JSON.parse(c.function.arguments) as unknown }))
      messages.push({ role: 'assistant', content: blocks })
    } else messages.push({ role: m.role, content: m.content })
  }
  const tools = payload.tools?.map((t) => ({ name: t.function.name, description: t.function.description, input_schema: t.function.parameters }))
  return { model: payload.model, system: first?.content, messages, ...(tools ? { tools } : {}), max_tokens: payload.max_tokens, stream: payload.stream }
}

/** A short label: `340 B`, `4 KB`, `128 KB`. */
export function sizeLabel(bytes: number): string {
  return bytes < 1024 ? `${bytes} B` : `${Math.round(bytes / 1024)} KB`
}

/** A small chat completion, as a model server answers one (capture-stages.ts, reply-parser.ts). */
export const SMALL_COMPLETION = JSON.stringify({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  created: 1,
  model: 'm',
  choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there.' }, finish_reason: 'stop' }],
  usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
})
