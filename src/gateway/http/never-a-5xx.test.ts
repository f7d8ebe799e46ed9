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

// Bad input gets a 4xx with the error envelope, never a 5xx, a hang or a stack trace.
let server: Server
let url: string
let key: string
let home: string
beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'mortar-fuzz-'))
  const keys = new KeyStore(join(home, 'keys.json'))
  key = keys.create({ name: 'fuzz' }).key
  server = createServer(createGateway({ keys, catalog: buildCatalog(defaultConfig(), { scriptedTokensPerSecond: 0 }) }).app)
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
    model: fc.oneof(fc.constant('Qwen/Qwen2.5-7B-Instruct'), fc.anything()),
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

describe('fuzzed request bodies', () => {
  it('answer 200 or a 4xx envelope, never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(body, fc.anything()), async (json) => {
        const response = await fetch(`${url}/v1/chat/completions`, {
          method: 'POST',
          headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(json) ?? 'undefined',
        })
        const text = await response.text()
        expect(response.status === 200 || (response.status >= 400 && response.status < 500)).toBe(true)
        if (response.status !== 200) {
          const envelope = JSON.parse(text) as { error: Record<string, unknown> }
          expect(Object.keys(envelope.error).sort()).toEqual(['code', 'message', 'param', 'type'])
          expect(text).not.toMatch(/at .*\.ts:\d+/)
        }
      }),
      { numRuns: 400 },
    )
  })
})
