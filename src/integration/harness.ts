import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import OpenAI from 'openai'
import { expect } from 'vitest'
import { startServe } from '../cli/serve-command'
import type { CliIo } from '../cli/cli-io'
import type { Role } from '../gateway/auth/key-records'
import type { Dialect } from '../shared/api/dialect'
import type { CompletionRecord } from '../gateway/pipeline/completion-context'
import type { GatewayServer } from '../gateway/server'
import type { TelemetryEvent } from '../shared/api/telemetry'

/**
 * A real `mortar serve` (the CLI's own start-up path, in this process) on port 0 with a fresh
 * home directory, plus helpers to make keys and clients. Every integration test goes through this.
 */
export interface TestGateway {
  server: GatewayServer
  url: string
  home: string
  /** The first-run owner key that `mortar serve` printed. */
  ownerKey: string
  output: string[]
  /** Every generation's completion record, in the order they ended. */
  completions: CompletionRecord[]
  createKey(options?: { org?: string; role?: Role; expiresInDays?: number | null; name?: string; dialect?: Dialect }): string
  client(key?: string, options?: { maxRetries?: number }): OpenAI
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<Response>
  close(): Promise<void>
}

/**
 * `observeCompletions: false` starts the gateway as `mortar serve` does, with nobody observing
 * completions (`completions` stays empty): nothing but the response then reads a usage estimate.
 */
export async function startTestGateway(args: string[] = [], options: { home?: string; observeCompletions?: boolean } = {}): Promise<TestGateway> {
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'mortar-test-'))
  const output: string[] = []
  const completions: CompletionRecord[] = []
  const io: CliIo = { out: (line) => output.push(line), err: (line) => output.push(line) }
  const observer = options.observeCompletions === false ? {} : { onCompletion: (record: CompletionRecord) => completions.push(record) }
  const server = await startServe(['--port', '0', '--home', home, ...args], io, observer)
  const ownerKey = output.join('\n').match(/^ +(mk_live_[A-Za-z0-9]+)$/m)?.[1]
  if (ownerKey === undefined) throw new Error(`serve printed no first-run key:\n${output.join('\n')}`)
  const url = server.url
  return {
    server,
    url,
    home,
    ownerKey,
    output,
    completions,
    createKey: ({ org, role, expiresInDays, name, dialect } = {}) =>
      server.keys.create({
        name: name ?? 'test',
        ...(dialect !== undefined ? { dialect } : {}),
        ...(org !== undefined ? { org } : {}),
        ...(role !== undefined ? { role } : {}),
        ...(expiresInDays !== undefined ? { expiresInDays } : {}),
      }).key,
    client: (key = ownerKey, options = {}) =>
      new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: options.maxRetries ?? 0 }),
    post: (path, body, headers = {}) =>
      fetch(`${url}${path}`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${ownerKey}`, 'Content-Type': 'application/json', ...headers },
        body: typeof body === 'string' ? body : JSON.stringify(body),
      }),
    close: async () => {
      await server.close()
      rmSync(home, { recursive: true, force: true })
    },
  }
}

/** An SSE body read as the wire carries it: every event's raw text, comments included. */
export async function readEvents(response: Response): Promise<string[]> {
  const text = await response.text()
  return text.split('\n\n').filter((event) => event !== '')
}

/** The JSON of each `data:` event except `[DONE]`. */
export function dataPayloads(events: string[]): Array<Record<string, unknown>> {
  return events
    .filter((event) => event.startsWith('data: ') && event !== 'data: [DONE]')
    .map((event) => JSON.parse(event.slice('data: '.length)) as Record<string, unknown>)
}

/**
 * Read a stream event by event as it arrives, so a test can act after the Nth event (stop it,
 * hang up) without sleeping.
 */
export async function* streamEvents(response: Response): AsyncGenerator<string> {
  if (response.body === null) return
  const decoder = new TextDecoder()
  let buffer = ''
  for await (const bytes of response.body) {
    buffer += decoder.decode(bytes, { stream: true })
    let end: number
    while ((end = buffer.indexOf('\n\n')) !== -1) {
      yield buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
    }
  }
  if (buffer !== '') yield buffer
}

export const userMessage = (content: string) => ({ messages: [{ role: 'user', content }] })

/**
 * Resolves with the ID of the next generation the gateway registers: the moment a request is
 * live, known without polling (its ID is otherwise only in the response, which may not exist yet).
 */
export function nextRegisteredGeneration(gw: TestGateway): Promise<string> {
  return new Promise((resolve) => {
    const unsubscribe = gw.server.gateway.generations.onRegister((id) => {
      unsubscribe()
      resolve(id)
    })
  })
}

/**
 * Subscribe to GET /v1/telemetry with this key. `next()` resolves with each event as it arrives;
 * `received` holds all so far; `close()` hangs up.
 */
export async function subscribeTelemetry(gw: TestGateway, key: string, query = '') {
  const controller = new AbortController()
  const response = await fetch(`${gw.url}/v1/telemetry${query}`, { headers: { Authorization: `Bearer ${key}` }, signal: controller.signal })
  expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
  const events = streamEvents(response)
  expect((await events.next()).value).toBe(': connected')
  const received: TelemetryEvent[] = []
  const next = async (): Promise<TelemetryEvent> => {
    for (;;) {
      const { value, done } = await events.next()
      if (done) throw new Error('telemetry stream ended')
      if (value.startsWith('data: ')) {
        const event = JSON.parse(value.slice(6)) as TelemetryEvent
        received.push(event)
        return event
      }
    }
  }
  return { next, close: () => controller.abort(), received }
}
