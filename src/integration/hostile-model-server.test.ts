import { beforeAll, describe, expect, it } from 'vitest'
import { MAX_SSE_LINE_CHARS } from '../shared/sse/sse-decoder'
import type { FakeModelServer } from '../test-kit/fake-model-server'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { readEvents, userMessage, type TestGateway } from './harness'
import { expectEnvelope, expectErrorPayload } from '../test-kit/expect-envelope'

// A model server that misbehaves on purpose: what it sends is bounded by the gateway, whatever it is.

let fake: FakeModelServer
let gw: TestGateway
beforeAll(async () => {
  const started = await startForwardingGateway({ name: 'hostile' }, ['--upstream-timeout', '5'])
  fake = started.fake
  gw = started.gw
  return started.close
})

describe('a model server sending one giant SSE line', () => {
  it('ends the stream with upstream_error and no [DONE] once the line passes the cap, and hangs up on the server', async () => {
    // 10 MB of one content delta with no newline at all, and the connection left open.
    const role = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { role: 'assistant', content: '' }, finish_reason: null }] })}\n\n`
    const giant = `data: {"choices":[{"index":0,"delta":{"content":"${'a'.repeat(10 * 1024 * 1024)}`
    fake.behavior.mode = 'replay'
    fake.behavior.replay = { body: role + giant, contentType: 'text/event-stream', ending: 'keep-open' }
    const before = fake.requests.length
    const response = await gw.post('/v1/chat/completions', userMessage('hi'))
    expect(response.status).toBe(200)
    const events = await readEvents(response)
    expect(events).not.toContain('data: [DONE]')
    expectErrorPayload(JSON.parse(events.at(-1)!.slice('data: '.length)), {
      type: 'upstream_error',
      message: `longer than ${MAX_SSE_LINE_CHARS.toLocaleString('en-US')} characters`,
    })
    const request = fake.requests[before]!
    await request.ended
    expect(request.hungUp).toBe(true)
    expect(gw.completions.at(-1)?.outcome).toBe('failed')
  })
})

describe('a model server whose error text holds credentials', () => {
  it('has them redacted before the text reaches the client', async () => {
    fake.behavior.mode = 'error-400'
    fake.behavior.errorMessage =
      'Invalid header Authorization: Bearer sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2 for key mk_live_Q1w2E3r4T5y6U7i8 (api_key=upstream-s3cret)'
    const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false })
    const error = await expectEnvelope(response, {
      status: 502,
      type: 'upstream_error',
      message: 'Invalid header Authorization: Bearer [redacted] for key [redacted] (api_key=[redacted])',
    })
    for (const secret of ['sk-proj-Zx9Qw8Er7Ty6Ui5Op4As3Df2', 'mk_live_Q1w2E3r4T5y6U7i8', 'upstream-s3cret']) expect(JSON.stringify(error)).not.toContain(secret)
  })
})
