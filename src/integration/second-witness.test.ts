import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
// An independent OpenAI-compatible mock server from npm, so our own fake is not the only witness
// that forwarding works (docs/forwarding.md). It echoes the last user message; streams it in
// chunks with finish_reason on the last content chunk (unlike our fake), and reports no usage.
import { getDefaultConfig } from '@dwmkerr/mock-llm/dist/config'
import { createServer } from '@dwmkerr/mock-llm/dist/server'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dataPayloads, readEvents, startTestGateway, userMessage, type TestGateway } from './harness'
import { loopbackHost } from '../test-kit/loopback'

let mock: Server
let gw: TestGateway
let upstream: string

beforeAll(async () => {
  const config = getDefaultConfig()
  config.streaming = { chunkSize: 7, chunkIntervalMs: 1 }
  config.rules.push({
    path: '/v1/chat/completions',
    method: 'POST',
    match: "body.messages[-1].content == 'please fail'",
    response: { status: 500, content: '{"error": {"message": "mock failure", "type": "server_error"}}' },
  })
  const app = createServer(config, '127.0.0.1', 0)
  mock = await new Promise<Server>((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server))
  })
  upstream = loopbackHost((mock.address() as AddressInfo).port)
  gw = await startTestGateway(['--upstream', `http://${upstream}/v1`])
})
afterAll(async () => {
  await gw.close()
  mock.closeAllConnections()
  await new Promise((resolve) => mock.close(resolve))
})

describe('forwarding to @dwmkerr/mock-llm', () => {
  const text = 'The quick brown fox jumps over the lazy dog, twice over.'

  it('non-streaming: its reply under our id, usage estimated', async () => {
    const { data, response } = await gw.client().chat.completions.create({ ...userMessage(text), stream: false } as never).withResponse()
    expect(data.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/)
    expect(response.headers.get('x-mortar-upstream')).toBe(upstream)
    expect(data.choices[0]?.message.content).toBe(text)
    expect(data.choices[0]?.finish_reason).toBe('stop')
    expect(data.usage?.completion_tokens).toBeGreaterThan(0)
    expect(gw.completions.at(-1)?.usageSource).toBe('estimate')
  })

  it('streaming: its chunks re-framed in the documented order', async () => {
    const events = await readEvents(await gw.post('/v1/chat/completions', { ...userMessage(text), stream_options: { include_usage: true } }))
    expect(events.at(-1)).toBe('data: [DONE]')
    const chunks = dataPayloads(events)
    expect(chunks[0]?.choices).toEqual([{ index: 0, delta: { role: 'assistant' }, logprobs: null, finish_reason: null }])
    const content = chunks.map((c) => (c.choices as Array<{ delta?: { content?: string } }>)[0]?.delta?.content ?? '').join('')
    expect(content).toBe(text)
    // Its finish_reason rode on a content chunk; ours is a chunk of its own, without delta.
    expect(chunks.at(-2)?.choices).toEqual([{ index: 0, logprobs: null, finish_reason: 'stop' }])
    expect(chunks.at(-1)?.choices).toEqual([])
  })

  it('its error status becomes 502 upstream_error with its message', async () => {
    const response = await gw.post('/v1/chat/completions', { ...userMessage('please fail'), stream: false })
    expect(response.status).toBe(502)
    const body = (await response.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('upstream_error')
    expect(body.error.message).toContain('mock failure')
  })
})
