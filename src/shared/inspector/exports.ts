import type { RecordedRequest } from './exchange'
import type { StreamFrame } from './stream-frames'

/**
 * Exports of an inspected request: a curl command and OpenAI SDK code that repeat it, and the
 * frames as JSON Lines. None of them contains the API key: the commands read MORTAR_API_KEY from
 * the environment, so an export can be pasted into an issue as it is.
 */

/** Quote for a POSIX shell: single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}

export function toCurl(request: RecordedRequest): string {
  const lines = [
    `curl -N ${shellQuote(request.url)}`,
    `  -H "Authorization: Bearer $MORTAR_API_KEY"`,
    `  -H 'Content-Type: application/json'`,
    ...Object.entries(request.headers).map(([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)}`),
    `  --data-raw ${shellQuote(JSON.stringify(request.body))}`,
  ]
  return lines.join(' \\\n')
}

/** One JSON object per frame: its sequence number, timings, kind and exact text. */
export function toJsonl(frames: readonly StreamFrame[]): string {
  return frames
    .map((frame) =>
      JSON.stringify({
        seq: frame.seq,
        at_ms: round(frame.at),
        dt_ms: round(frame.dt),
        kind: frame.kind,
        raw: frame.raw,
      }),
    )
    .map((line) => line + '\n')
    .join('')
}

const round = (ms: number) => Math.round(ms * 1000) / 1000

/** The OpenAI base URL (…/v1) of a chat-completions endpoint URL. */
export function baseUrlOf(endpoint: string): string {
  return endpoint.replace(/\/chat\/completions\/?$/, '')
}

/** Code for the `openai` npm package that sends the same request and prints the reply. */
export function toOpenAiSdkTypeScript(request: RecordedRequest): string {
  const body = { ...request.body }
  // Mortar streams when `stream` is absent, the SDK assumes it doesn't: say it explicitly.
  const stream = body.stream !== false
  body.stream = stream
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

