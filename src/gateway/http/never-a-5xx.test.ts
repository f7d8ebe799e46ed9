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
import { expectErrorPayload } from '../../test-kit/expect-envelope'

// Fuzzing: bad input gets a 4xx with the error envelope — never a 5xx, a crash, a hang or a stack trace.
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

const message = fc.record(
  {
    role: fc.oneof(fc.constantFrom('system', 'user', 'assistant', 'tool', 'developer', 'function'), fc.anything()),
    content: fc.oneof(fc.string(), fc.constant(null), fc.array(fc.oneof(fc.record({ type: fc.string(), text: fc.string() }), fc.anything()))),
    tool_calls: fc.anything(),
    tool_call_id: fc.oneof(fc.string(), fc.anything()),
  },
  { requiredKeys: [] },
)
const body = fc.record(
  {
    model: fc.oneof(fc.constant(DEFAULT_MODEL_ID), fc.anything()),
    messages: fc.oneof(fc.array(message, { maxLength: 4 }), fc.anything()),
    stream: fc.oneof(fc.boolean(), fc.anything()),
    max_tokens: fc.oneof(fc.integer({ min: -5, max: 5000 }), fc.double(), fc.anything()),
    tools: fc.anything(),
    tool_choice: fc.oneof(fc.constantFrom('auto', 'none', 'required'), fc.anything()),
    parallel_tool_calls: fc.anything(),
    stream_options: fc.anything(),
  },
  { requiredKeys: [] },
)

/**
 * Hundreds of real requests per property: a bound on the machine's speed, not on the gateway's
 * behaviour (under a shared CI machine's load the default 20 s was not enough on main itself).
 */
const FUZZ_TIMEOUT_MS = 180_000

/** Every reply: a documented status, the envelope on errors, no stack trace, no hang. */
async function expectDocumentedReply(response: Response): Promise<void> {
  const text = await response.text()
  expect(response.status === 200 || (response.status >= 400 && response.status < 500)).toBe(true)
  if (response.status !== 200 && response.headers.get('content-type')?.startsWith('application/json')) {
    expectErrorPayload(JSON.parse(text))
  }
  expect(text).not.toMatch(/at .*\.(ts|js):\d+/)
}

const post = (body: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json', ...headers },
    body,
    signal: AbortSignal.timeout(5_000),
  })

describe('fuzzed requests', () => {
  it('bodies: 200 or a 4xx envelope, never a 5xx', { timeout: FUZZ_TIMEOUT_MS }, async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(body, fc.anything()), async (json) => {
        await expectDocumentedReply(await post(JSON.stringify(json) ?? 'undefined'))
      }),
      { numRuns: 1_500 },
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
