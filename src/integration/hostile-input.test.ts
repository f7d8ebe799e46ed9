import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { FakeModelServer } from '../test-kit/fake-model-server'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { startTestGateway, userMessage, type TestGateway } from './harness'
import { expectEnvelope } from '../test-kit/expect-envelope'

// JSON nested deep enough to overflow whatever walks it later was a 500; it is a 400 now, refused
// before anything recursive sees it (limit: 64 levels, docs/security.md).

const nestedArrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
/** A JSON Schema whose properties nest `depth` objects deep. */
const deepSchema = (depth: number) => '{"type":"object","properties":{"a":'.repeat(depth) + '{"type":"string"}' + '}}'.repeat(depth)

let scripted: TestGateway
let fake: FakeModelServer
let forwarding: TestGateway
beforeAll(async () => {
  scripted = await startTestGateway()
  const started = await startForwardingGateway({ name: 'deep' })
  fake = started.fake
  forwarding = started.gw
  return started.close
})
afterAll(() => scripted.close())

const expectRefused = (response: Response, code: string, param: string | null) =>
  expectEnvelope(response, { status: 400, retry: false, type: 'invalid_request_error', code, param, message: 'more than 64 levels deep' })

describe('deeply nested JSON', () => {
  it('in tools[].function.parameters (2,000 deep, a 70 KB body) is a 400, not a 500 from the template', async () => {
    const body = `{"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deepSchema(2_000)}}}]}`
    await expectRefused(await scripted.post('/v1/chat/completions', body), 'invalid_json', null)
  })

  it('in tool-call arguments (a JSON string nested 50,000 deep) is a 400 naming them', async () => {
    const body = {
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: nestedArrays(50_000) } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'done' },
      ],
    }
    await expectRefused(await scripted.post('/v1/chat/completions', body), 'invalid_request', 'messages[1].tool_calls[0].function.arguments')
  })

  it('in a field the gateway ignores (100,000 deep) is a 400 with --upstream, and never reaches the server', async () => {
    const before = fake.requests.length
    const body = JSON.stringify(userMessage('hi')).slice(0, -1) + `,"x_vendor":${nestedArrays(100_000)}}`
    await expectRefused(await forwarding.post('/v1/chat/completions', body), 'invalid_json', null)
    expect(fake.requests.length).toBe(before)
  })

  it('at the limit is accepted', async () => {
    const response = await scripted.post('/v1/chat/completions', {
      ...userMessage('hi'),
      stream: false,
      tools: [{ type: 'function', function: { name: 'f', parameters: JSON.parse(deepSchema(28)) as object } }],
      tool_choice: 'none',
    })
    expect(response.status).toBe(200)
  })
})
