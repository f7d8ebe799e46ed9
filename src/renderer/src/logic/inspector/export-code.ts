import { DEFAULT_MODEL_ID } from '../../../../shared/api/chat-request'
import type { RecordedRequest } from './exchange'
import { baseUrlOf } from './exports'

/**
 * Code that sends an inspected request again and prints the reply: the `openai` npm package
 * (TypeScript), the `openai` Python package, and plain `fetch` (Node 18+, no dependencies). Each
 * reads the key from MORTAR_API_KEY. Every export must run as printed (tests type-check, compile or
 * run each one against a gateway).
 */

// Mortar streams when `stream` is absent; the SDKs assume it does not: they always say it.
const isStreamed = (body: Record<string, unknown>) => body.stream !== false

const DEFAULT_MODEL_NOTE = 'The playground left the model to the gateway; the SDK needs one, so this is the gateway’s default.'

/** The body as the SDKs need it: `stream` spelled out, and a model (theirs is a required field). */
function sdkBody(request: RecordedRequest): { body: Record<string, unknown>; defaultedModel: boolean } {
  const body: Record<string, unknown> = { ...request.body, stream: isStreamed(request.body) }
  const defaultedModel = typeof body.model !== 'string' || body.model === ''
  if (defaultedModel) body.model = DEFAULT_MODEL_ID
  // model first, as people write it
  const { model, ...rest } = body
  return { body: { model, ...rest }, defaultedModel }
}

/** Code for the `openai` npm package. */
export function toOpenAiSdkTypeScript(request: RecordedRequest): string {
  const { body, defaultedModel } = sdkBody(request)
  const stream = body.stream === true
  const headers = Object.keys(request.headers).length > 0 ? `, { headers: ${JSON.stringify(request.headers, null, 2)} }` : ''
  const call = `await client.chat.completions.create(${JSON.stringify(body, null, 2)}${headers})`
  const lines = [
    `import OpenAI from 'openai'`,
    ``,
    `const client = new OpenAI({`,
    `  baseURL: ${JSON.stringify(baseUrlOf(request.url))},`,
    `  apiKey: process.env.MORTAR_API_KEY,`,
    `})`,
    ``,
    ...(defaultedModel ? [`// ${DEFAULT_MODEL_NOTE}`] : []),
  ]
  if (stream) {
    lines.push(
      `const stream = ${call}`,
      `for await (const chunk of stream) {`,
      `  const delta = chunk.choices[0]?.delta`,
      `  if (delta?.content) process.stdout.write(delta.content)`,
      `  if (delta?.tool_calls) console.log('\\n[tool call piece]', JSON.stringify(delta.tool_calls))`,
      `  if (chunk.usage) console.log('\\n[usage]', chunk.usage)`,
      `}`,
      `process.stdout.write('\\n')`,
    )
  } else {
    lines.push(`const completion = ${call}`, `console.log(JSON.stringify(completion, null, 2))`)
  }
  return lines.join('\n') + '\n'
}

/** A JSON value as a Python literal (JSON's string escapes are Python's too). */
export function pythonLiteral(value: unknown, indent = 0): string {
  const pad = ' '.repeat(indent + 4)
  const end = ' '.repeat(indent)
  if (value === null || value === undefined) return 'None'
  if (value === true) return 'True'
  if (value === false) return 'False'
  if (typeof value === 'number' || typeof value === 'string') return JSON.stringify(value)
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]'
    return `[\n${value.map((item) => `${pad}${pythonLiteral(item, indent + 4)},`).join('\n')}\n${end}]`
  }
  const entries = typeof value === 'object' ? Object.entries(value) : []
  if (entries.length === 0) return '{}'
  return `{\n${entries.map(([key, item]) => `${pad}${JSON.stringify(key)}: ${pythonLiteral(item, indent + 4)},`).join('\n')}\n${end}}`
}

/** The keyword arguments the Python SDK's `chat.completions.create` takes; anything else goes in `extra_body`. */
const PYTHON_KWARGS = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'stop',
  'seed', 'n', 'user', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'frequency_penalty',
  'presence_penalty', 'logit_bias', 'logprobs', 'top_logprobs', 'metadata', 'store', 'reasoning_effort',
])

/** Code for the `openai` Python package. */
export function toOpenAiSdkPython(request: RecordedRequest): string {
  const { body, defaultedModel } = sdkBody(request)
  const stream = body.stream === true
  const kwargs = Object.entries(body).filter(([key]) => PYTHON_KWARGS.has(key))
  const extra = Object.fromEntries(Object.entries(body).filter(([key]) => !PYTHON_KWARGS.has(key)))
  const args = [
    ...kwargs.map(([key, value]) => `    ${key}=${pythonLiteral(value, 4)},`),
    ...(Object.keys(extra).length > 0 ? [`    extra_body=${pythonLiteral(extra, 4)},`] : []),
    ...(Object.keys(request.headers).length > 0 ? [`    extra_headers=${pythonLiteral(request.headers, 4)},`] : []),
  ]
  const lines = [
    `import os`,
    ``,
    `from openai import OpenAI`,
    ``,
    `client = OpenAI(base_url=${JSON.stringify(baseUrlOf(request.url))}, api_key=os.environ["MORTAR_API_KEY"])`,
    ``,
    ...(defaultedModel ? [`# ${DEFAULT_MODEL_NOTE}`] : []),
    `${stream ? 'stream' : 'completion'} = client.chat.completions.create(`,
    ...args,
    `)`,
  ]
  if (stream) {
    lines.push(
      `for chunk in stream:`,
      `    if chunk.choices:`,
      `        delta = chunk.choices[0].delta`,
      `        if delta.content:`,
      `            print(delta.content, end="", flush=True)`,
      `        if delta.tool_calls:`,
      `            print("\\n[tool call piece]", [piece.model_dump(exclude_none=True) for piece in delta.tool_calls])`,
      `    if chunk.usage:`,
      `        print("\\n[usage]", chunk.usage.model_dump(exclude_none=True))`,
      `print()`,
    )
  } else {
    lines.push(`print(completion.model_dump_json(indent=2))`)
  }
  return lines.join('\n') + '\n'
}

/** Plain `fetch` (an ES module for Node 18+): the request exactly as it was sent, the stream read by hand. */
export function toFetch(request: RecordedRequest): string {
  const headers = Object.entries(request.headers).map(([name, value]) => `    ${JSON.stringify(name)}: ${JSON.stringify(value)},`)
  const lines = [
    `// Save as request.mjs and run: MORTAR_API_KEY=mk_live_… node request.mjs`,
    `const response = await fetch(${JSON.stringify(request.url)}, {`,
    `  method: 'POST',`,
    `  headers: {`,
    '    Authorization: `Bearer ${process.env.MORTAR_API_KEY}`,',
    `    'Content-Type': 'application/json',`,
    ...headers,
    `  },`,
    `  body: JSON.stringify(${JSON.stringify(request.body, null, 2).replace(/\n/g, '\n  ')}),`,
    `})`,
    `if (!response.ok) {`,
    '  console.error(`HTTP ${response.status}:`, await response.text())',
    `  process.exit(1)`,
    `}`,
  ]
  if (isStreamed(request.body)) {
    lines.push(
      `// Server-sent events: blank-line-separated, each "data: <JSON>" line a chunk, then "data: [DONE]".`,
      `const decoder = new TextDecoder()`,
      `let buffer = ''`,
      `for await (const bytes of response.body) {`,
      `  buffer += decoder.decode(bytes, { stream: true }).replace(/\\r\\n?/g, '\\n')`,
      `  let end`,
      `  while ((end = buffer.indexOf('\\n\\n')) >= 0) {`,
      `    const event = buffer.slice(0, end)`,
      `    buffer = buffer.slice(end + 2)`,
      `    for (const line of event.split('\\n')) {`,
      `      if (!line.startsWith('data: ') || line === 'data: [DONE]') continue`,
      `      const chunk = JSON.parse(line.slice('data: '.length))`,
      `      if (chunk.error) {`,
      `        console.error('\\n[error]', chunk.error)`,
      `        process.exit(1)`,
      `      }`,
      `      const delta = chunk.choices?.[0]?.delta`,
      `      if (delta?.content) process.stdout.write(delta.content)`,
      `      if (delta?.tool_calls) console.log('\\n[tool call piece]', JSON.stringify(delta.tool_calls))`,
      `      if (chunk.usage) console.log('\\n[usage]', chunk.usage)`,
      `    }`,
      `  }`,
      `}`,
      `process.stdout.write('\\n')`,
    )
  } else {
    lines.push(`console.log(JSON.stringify(await response.json(), null, 2))`)
  }
  return lines.join('\n') + '\n'
}
