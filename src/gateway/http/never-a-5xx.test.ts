import { DEFAULT_MODEL_ID } from '../../shared/api/chat-request'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KeyStore } from '../auth/key-store'
import { buildCatalog } from '../config/build-catalog'
import { defaultConfig } from '../config/config-file'
import { createGateway } from '../create-gateway'
import { expectAnthropicErrorPayload, expectErrorPayload } from '../../test-kit/expect-envelope'

// Fuzzing: bad input gets a 4xx in its API's own error envelope — never a 5xx, a crash, a hang or a
// stack trace — on every endpoint an IDE tool calls: chat completions, Responses, completions,
// embeddings, Anthropic's Messages and its count_tokens.
let server: Server
let url: string
let key: string
let home: string
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mortar-fuzz-'))
  const keys = new KeyStore(join(home, 'keys.json'))
  key = keys.create({ name: 'fuzz' }).key
  server = createServer(createGateway({ keys, catalog: buildCatalog(defaultConfig(), { scriptedTokensPerSecond: 0 }) }).handler)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve))
  rmSync(home, { recursive: true, force: true })
})

// Each endpoint's bodies are made three ways: valid ones (which reach the model and its reply,
// streamed or not), valid ones with one value anywhere in them replaced by anything or removed
// (which reach the validation of each field, and past it where the change still validates), and
// anything at all. Fields of arbitrary junk alone would be refused at the first field checked.
const shortText = fc.string({ maxLength: 30 })
const someText = fc.string({ minLength: 1, maxLength: 30 })
const fewTokens = fc.integer({ min: 1, max: 48 })

/** Every path to a value inside `value` (not `value` itself): object keys and array indexes. */
function pathsOf(value: unknown, prefix: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return []
  const entries: Array<[string | number, unknown]> = Array.isArray(value) ? value.map((item, index) => [index, item]) : Object.entries(value)
  return entries.flatMap(([key, item]) => [[...prefix, key], ...pathsOf(item, [...prefix, key])])
}

/** `value` with the value at `path` replaced (or, for `undefined`, removed). */
function replaceAt(value: unknown, path: ReadonlyArray<string | number>, replacement: unknown): unknown {
  const [key, ...rest] = path
  if (key === undefined || value === null || typeof value !== 'object') return replacement
  const inner = (at: unknown) => (rest.length === 0 ? replacement : replaceAt(at, rest, replacement))
  if (Array.isArray(value)) {
    const copy: unknown[] = [...value]
    if (rest.length === 0 && replacement === undefined) copy.splice(Number(key), 1)
    else copy[Number(key)] = inner(copy[Number(key)])
    return copy
  }
  const copy: Record<string, unknown> = { ...value }
  if (rest.length === 0 && replacement === undefined) delete copy[key]
  else copy[key] = inner(copy[key])
  return copy
}

/** Values that have broken JSON handlers elsewhere: prototype keys, deep nesting, edge numbers, odd text. */
const nested = (depth: number, leaf: unknown): unknown => (depth === 0 ? leaf : { a: [nested(depth - 1, leaf)] })
const trickyValue = fc.constantFrom<unknown>(
  JSON.parse('{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}'),
  nested(2_000, 'deep'),
  1e308,
  -1,
  0,
  2 ** 53 + 1,
  0.5,
  '',
  '\u0000',
  '\ud800',
  'x'.repeat(100_000),
  [],
  {},
)

/** Valid bodies, the same with one value changed to anything (or removed), and anything at all. */
function fuzzedBodies(valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> {
  const replacement = fc.option(fc.oneof({ arbitrary: fc.anything(), weight: 3 }, { arbitrary: trickyValue, weight: 1 }), { nil: undefined, freq: 6 })
  const mutated = fc.tuple(valid, fc.nat(), replacement).map(([body, pick, replacement]) => {
    const paths = pathsOf(body)
    return paths.length === 0 ? replacement : replaceAt(body, paths[pick % paths.length]!, replacement)
  })
  return fc.oneof({ arbitrary: valid, weight: 2 }, { arbitrary: mutated, weight: 5 }, { arbitrary: fc.anything(), weight: 1 })
}

/** A record whose keys are all optional but `required`. */
const optionalFields = (fields: Record<string, fc.Arbitrary<unknown>>, required: string[]): fc.Arbitrary<Record<string, unknown>> =>
  fc.record(fields, { requiredKeys: required })

// Chat completions (the spec's endpoint).
const chatTool = { type: 'function', function: { name: 'f', description: 'a tool', parameters: { type: 'object' } } }
const chatToolTurn = fc.tuple(shortText, shortText).map(([args, result]) => [
  { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: JSON.stringify({ q: args }) } }] },
  { role: 'tool', tool_call_id: 'call_1', content: result },
])
const chatMessages = fc
  .tuple(
    fc.array(fc.record({ role: fc.constantFrom('system', 'developer', 'user', 'assistant'), content: fc.oneof(shortText, fc.constant([{ type: 'text', text: 'part' }])) }), { minLength: 1, maxLength: 3 }),
    fc.option(chatToolTurn, { nil: undefined }),
  )
  .map(([messages, toolTurn]) => [...messages, ...(toolTurn ?? [])])
const chatBody = fc
  .tuple(
    optionalFields(
      {
        model: fc.constant(DEFAULT_MODEL_ID),
        messages: chatMessages,
        stream: fc.boolean(),
        max_tokens: fewTokens,
        max_completion_tokens: fewTokens,
        stream_options: fc.record({ include_usage: fc.boolean() }),
        temperature: fc.double({ min: 0, max: 2, noNaN: true }),
        stop: fc.oneof(shortText, fc.array(shortText, { maxLength: 3 })),
        user: shortText,
      },
      ['messages'],
    ),
    fc.option(fc.record({ tools: fc.constant([chatTool]), tool_choice: fc.constantFrom('auto', 'none', 'required', { type: 'function', function: { name: 'f' } }), parallel_tool_calls: fc.boolean() }, { requiredKeys: ['tools'] }), { nil: undefined }),
  )
  .map(([body, tooling]) => ({ ...body, ...tooling }))

// The Responses API (Codex CLI, the Vercel AI SDK).
const responsesToolTurn = fc.tuple(shortText, shortText).map(([args, result]) => [
  { type: 'function_call', call_id: 'call_1', name: 'f', arguments: JSON.stringify({ q: args }) },
  { type: 'function_call_output', call_id: 'call_1', output: result },
])
const responsesInput = fc.oneof(
  shortText,
  fc
    .tuple(
      fc.array(
        fc.record({ type: fc.constant('message'), role: fc.constantFrom('user', 'assistant', 'system', 'developer'), content: fc.oneof(shortText, fc.constant([{ type: 'input_text', text: 'part' }])) }, { requiredKeys: ['role', 'content'] }),
        { minLength: 1, maxLength: 3 },
      ),
      fc.option(responsesToolTurn, { nil: undefined }),
    )
    .map(([messages, toolTurn]) => [...messages, ...(toolTurn ?? [])]),
)
const responsesBody = fc
  .tuple(
    optionalFields(
      {
        model: fc.constant(DEFAULT_MODEL_ID),
        input: responsesInput,
        instructions: shortText,
        stream: fc.boolean(),
        store: fc.constant(false),
        max_output_tokens: fewTokens,
        prompt_cache_key: shortText,
        text: fc.constantFrom({ format: { type: 'text' } }, { format: { type: 'json_object' } }),
        reasoning: fc.constantFrom({ effort: 'low' }, { summary: 'auto' }),
        include: fc.constant(['reasoning.encrypted_content']),
      },
      ['input'],
    ),
    fc.option(
      fc.record(
        {
          tools: fc.constantFrom([{ type: 'function', name: 'f', parameters: { type: 'object' } }], [{ type: 'function', name: 'f', parameters: { type: 'object' }, strict: false }, { type: 'web_search' }]),
          tool_choice: fc.constantFrom('auto', 'none', 'required', { type: 'function', name: 'f' }),
          parallel_tool_calls: fc.boolean(),
        },
        { requiredKeys: ['tools'] },
      ),
      { nil: undefined },
    ),
  )
  .map(([body, tooling]) => ({ ...body, ...tooling }))

// Completions (Continue's tab autocomplete).
const completionsBody = optionalFields(
  {
    model: fc.constant(DEFAULT_MODEL_ID),
    prompt: fc.oneof(shortText, fc.array(shortText, { minLength: 1, maxLength: 1 })),
    suffix: shortText,
    stream: fc.boolean(),
    stream_options: fc.record({ include_usage: fc.boolean() }),
    max_tokens: fewTokens,
    echo: fc.boolean(),
    stop: fc.oneof(shortText, fc.array(shortText, { maxLength: 4 })),
    temperature: fc.double({ min: 0, max: 2, noNaN: true }),
  },
  ['model', 'prompt'],
)

// Embeddings (Continue's indexing, the SDKs' embeddings).
const tokenIds = fc.array(fc.integer({ min: 0, max: 100_000 }), { minLength: 1, maxLength: 6 })
const embeddingsBody = optionalFields(
  {
    model: fc.constant(DEFAULT_MODEL_ID),
    input: fc.oneof(someText, fc.array(someText, { minLength: 1, maxLength: 4 }), tokenIds, fc.array(tokenIds, { minLength: 1, maxLength: 3 })),
    encoding_format: fc.constantFrom('float', 'base64'),
    user: shortText,
  },
  ['model', 'input'],
)

// Anthropic's Messages API (Claude Code) and its count_tokens.
const anthropicToolTurn = fc.tuple(shortText, shortText).map(([args, result]) => [
  { role: 'assistant', content: [{ type: 'text', text: 'calling' }, { type: 'tool_use', id: 'toolu_1', name: 'f', input: { q: args } }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: result }] },
])
const anthropicMessages = fc
  .tuple(
    fc.array(fc.record({ role: fc.constantFrom('user', 'assistant'), content: fc.oneof(shortText, fc.constant([{ type: 'text', text: 'part' }])) }), { minLength: 1, maxLength: 3 }),
    fc.option(anthropicToolTurn, { nil: undefined }),
  )
  .map(([messages, toolTurn]) => [{ role: 'user', content: 'hi' }, ...messages, ...(toolTurn ?? [])])
const anthropicFields = {
  model: fc.constant(DEFAULT_MODEL_ID),
  messages: anthropicMessages,
  system: fc.oneof(shortText, fc.constant([{ type: 'text', text: 'be brief', cache_control: { type: 'ephemeral' } }])),
  thinking: fc.constantFrom({ type: 'disabled' }, { type: 'enabled', budget_tokens: 1024 }),
}
const anthropicTooling = fc.option(
  fc.record(
    {
      tools: fc.constant([{ name: 'f', description: 'a tool', input_schema: { type: 'object', properties: { q: { type: 'string' } } } }]),
      tool_choice: fc.constantFrom({ type: 'auto' }, { type: 'any' }, { type: 'none' }, { type: 'tool', name: 'f' }),
    },
    { requiredKeys: ['tools'] },
  ),
  { nil: undefined },
)
const messagesBody = fc
  .tuple(
    optionalFields(
      { ...anthropicFields, max_tokens: fewTokens, stream: fc.boolean(), stop_sequences: fc.array(shortText, { maxLength: 3 }), temperature: fc.double({ min: 0, max: 1, noNaN: true }), metadata: fc.constant({ user_id: 'u' }) },
      ['model', 'messages', 'max_tokens'],
    ),
    anthropicTooling,
  )
  .map(([body, tooling]) => ({ ...body, ...tooling }))
const countTokensBody = fc.tuple(optionalFields(anthropicFields, ['model', 'messages']), anthropicTooling).map(([body, tooling]) => ({ ...body, ...tooling }))

/** Which envelope an API's refusals (and its streams' error events) come in. */
type Envelope = 'openai' | 'anthropic'

/** Every endpoint an IDE tool calls: its path, what is fuzzed at it, its API's envelope. */
const ENDPOINTS: ReadonlyArray<{ path: string; body: fc.Arbitrary<unknown>; envelope: Envelope; runs: number }> = [
  { path: '/v1/chat/completions', body: fuzzedBodies(chatBody), envelope: 'openai', runs: 1_500 },
  { path: '/v1/responses', body: fuzzedBodies(responsesBody), envelope: 'openai', runs: 800 },
  { path: '/v1/completions', body: fuzzedBodies(completionsBody), envelope: 'openai', runs: 500 },
  { path: '/v1/embeddings', body: fuzzedBodies(embeddingsBody), envelope: 'openai', runs: 500 },
  { path: '/v1/messages', body: fuzzedBodies(messagesBody), envelope: 'anthropic', runs: 800 },
  { path: '/v1/messages/count_tokens', body: fuzzedBodies(countTokensBody), envelope: 'anthropic', runs: 500 },
]

/**
 * Hundreds of real requests per property: a bound on the machine's speed, not on the gateway's
 * behaviour (under a shared CI machine's load the default 20 s was not enough on main itself).
 */
const FUZZ_TIMEOUT_MS = 180_000

/** Every reply: a documented status, the API's own envelope on errors, no stack trace, no hang. */
async function expectDocumentedReply(response: Response, envelope: Envelope = 'openai'): Promise<void> {
  const text = await response.text()
  expect(response.status === 200 || (response.status >= 400 && response.status < 500), `${response.status} ${text}`).toBe(true)
  const expectEnvelope = (payload: unknown) => (envelope === 'anthropic' ? expectAnthropicErrorPayload(payload) : expectErrorPayload(payload))
  if (response.status !== 200) {
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expectEnvelope(JSON.parse(text))
  } else if (response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // After the headers an error can only be an event: in the same envelope.
    for (const [, data] of text.matchAll(/^data: (.*)$/gm)) {
      if (data === undefined || data === '[DONE]') continue
      const event: unknown = JSON.parse(data)
      if (typeof event !== 'object' || event === null) continue
      if ('error' in event) expectEnvelope(event)
      // The Responses API's own error event: `{"type": "error", code, message, param}`.
      else if ('type' in event && event.type === 'error') expect(event).toMatchObject({ code: expect.any(String), message: expect.stringMatching(/./) })
    }
  }
  expect(text).not.toMatch(/at .*\.(ts|js):\d+/)
}

const post = (body: string, headers: Record<string, string> = {}, path = '/v1/chat/completions') =>
  fetch(`${url}${path}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(5_000),
  })

describe('fuzzed requests', () => {
  it.each(ENDPOINTS)('bodies at $path: 200 or a 4xx in its envelope, never a 5xx', { timeout: FUZZ_TIMEOUT_MS }, async ({ path, body, envelope, runs }) => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(body, fc.anything()), async (json) => {
        await expectDocumentedReply(await post(JSON.stringify(json) ?? 'undefined', {}, path), envelope)
      }),
      { numRuns: runs },
    )
  })

  it('headers: any value of every header Mortar reads', { timeout: FUZZ_TIMEOUT_MS }, async () => {
    const printable = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 200 })
    const headerValues = fc.record(
      {
        'X-Mortar-Optimize': fc.oneof(printable, fc.constantFrom('on', 'off', 'json-tool-blocks,collapse-spaces', '')),
        'X-Mortar-Tool-Select': fc.oneof(printable, fc.constant('named')),
        'X-Mortar-Session': printable,
        'X-Mortar-Dedupe': fc.oneof(printable, fc.constant('in-flight')),
        'Idempotency-Key': printable,
        'X-Request-Id': printable,
        Authorization: fc.oneof(printable, fc.constant(`Bearer ${key}`)),
        // Anthropic's clients send only this; Continue's adapters send both.
        'x-api-key': fc.oneof(printable, fc.constant(key)),
      },
      { requiredKeys: [] },
    )
    const validBody = JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream: false, tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: { type: 'function', function: { name: 'f' } } })
    await fc.assert(
      fc.asyncProperty(headerValues, async (headers) => {
        await expectDocumentedReply(await post(validBody, headers))
      }),
      { numRuns: 800 },
    )
  })

  it('paths and methods: the envelope for anything unknown', { timeout: FUZZ_TIMEOUT_MS }, async () => {
    const segment = fc.string({ unit: fc.constantFrom(...'abcxyz019-_.~%20'.split('')), maxLength: 12 })
    await fc.assert(
      fc.asyncProperty(fc.array(segment, { maxLength: 5 }), fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'), fc.boolean(), async (segments, method, underV1) => {
        const path = (underV1 ? '/v1/' : '/') + segments.join('/')
        const response = await fetch(`${url}${path}`, {
          method,
          headers: { Authorization: `Bearer ${key}` },
          ...(method === 'GET' ? {} : { body: '{}' }),
          signal: AbortSignal.timeout(5_000),
        })
        if (path.startsWith('/v1/telemetry') && method === 'GET' && response.status === 200) {
          await response.body?.cancel()
          return
        }
        await expectDocumentedReply(response)
      }),
      { numRuns: 800 },
    )
  })
})
