import type { RecordedRequest } from './exchange'
import type { StreamFrame } from './stream-frames'

/**
 * Exports of an inspected request: a curl command that repeats it, and the frames as JSON Lines
 * (code for the SDKs and fetch: export-code.ts). None of them contains the API key: the commands
 * read MORTAR_API_KEY from the environment, so an export can be pasted into an issue as it is.
 */

/** Quote for a POSIX shell: single quotes, each `'` written as `'\''`. */
export function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`
}

/**
 * The request again, as curl: its method (`-X` unless it is what curl sends by itself: GET
 * without a body, POST with one) and its body — a captured one exactly as received, so a
 * refused request is repeated as it was refused.
 */
export function toCurl(request: RecordedRequest): string {
  const body = request.bodyText ?? JSON.stringify(request.body)
  const method = request.method ?? 'POST'
  const implied = body === '' ? 'GET' : 'POST'
  const lines = [
    `curl -N ${method === implied ? '' : `-X ${method} `}${shellQuote(request.url)}`,
    `  -H "Authorization: Bearer $MORTAR_API_KEY"`,
    ...(body === '' ? [] : [`  -H 'Content-Type: application/json'`]),
    ...Object.entries(request.headers).map(([name, value]) => `  -H ${shellQuote(`${name}: ${value}`)}`),
    ...(body === '' ? [] : [`  --data-raw ${shellQuote(body)}`]),
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
