import type OpenAI from 'openai'
import type { ResponseInputItem } from 'openai/resources/responses/responses'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { defaultFakeBehavior, startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { readEvents, startTestGateway, type TestGateway } from './harness'

// POST /v1/responses in front of a model server, with the real openai SDK: translated to chat
// completions for a server without /v1/responses, forwarded as it is to one that has it.
const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
}
const callPieces = [
  { index: 0, id: 'call_up1', type: 'function' as const, function: { name: 'get_weather', arguments: '' } },
  { index: 0, function: { arguments: '{"city":' } },
  { index: 0, function: { arguments: '"Paris"}' } },
]
const conversation: ResponseInputItem[] = [
  { role: 'user', content: 'Weather in Paris?' },
  { type: 'function_call', call_id: 'call_up1', name: 'get_weather', arguments: '{"city":"Paris"}' },
  { type: 'function_call_output', call_id: 'call_up1', output: '18 C' },
]

for (const speaksResponses of [false, true]) {
  describe(speaksResponses ? 'a model server with its own /v1/responses (native)' : 'a chat-only model server (translated)', () => {
    let fake: FakeModelServer
    let gw: TestGateway
    let client: OpenAI
    beforeAll(async () => {
      fake = await startFakeModelServer({ name: 'fake-r', speaksResponses })
      gw = await startTestGateway(['--upstream', fake.url])
      client = gw.client()
    })
    afterAll(async () => {
      await gw.close()
      await fake.close()
    })
    afterEach(() => {
      fake.behavior = { ...defaultFakeBehavior(), name: 'fake-r', speaksResponses }
    })

    const expectedPath = speaksResponses ? '/v1/responses' : '/v1/chat/completions'

    it('a text reply, JSON, with the server’s usage', async () => {
      const response = await client.responses.create({ model: DEFAULT_MODEL_ID, instructions: 'Be brief.', input: 'Hi', max_output_tokens: 50, temperature: 0.3 })
      expect(response.output_text).toBe('Hello from the model')
      expect(response.usage).toMatchObject({ input_tokens: 11, output_tokens: 4, total_tokens: 15, input_tokens_details: { cached_tokens: 8 } })
      const sent = await fake.nextRequest()
      expect(sent.path).toBe(expectedPath)
      if (speaksResponses) {
        expect(sent.body).toMatchObject({ model: DEFAULT_MODEL_ID, instructions: 'Be brief.', input: [{ type: 'message', role: 'user', content: 'Hi' }], max_output_tokens: 50, temperature: 0.3, stream: false })
      } else {
        expect(sent.body).toMatchObject({
          messages: [
            { role: 'system', content: 'Be brief.' },
            { role: 'user', content: 'Hi' },
          ],
          max_tokens: 50,
          temperature: 0.3,
          stream: false,
        })
      }
    })

    it('a streamed text reply', async () => {
      const final = await client.responses.stream({ model: DEFAULT_MODEL_ID, input: 'Hi' }).finalResponse()
      expect(final.output_text).toBe('Hello from the model')
      expect(final.usage?.output_tokens).toBe(4)
      expect((await fake.nextRequest()).body).toMatchObject({ stream: true })
    })

    for (const stream of [false, true]) {
      it(`a tool call from the server, then its result sent back (${stream ? 'streamed' : 'JSON'})`, async () => {
        fake.behavior.toolCallPieces = callPieces
        fake.behavior.finishReason = 'tool_calls'
        const params = { model: DEFAULT_MODEL_ID, input: 'Weather in Paris?', tools: [weatherTool] }
        const first = stream ? await client.responses.stream(params).finalResponse() : await client.responses.create(params)
        expect(first.output).toMatchObject([{ type: 'function_call', call_id: 'call_up1', name: 'get_weather', arguments: '{"city":"Paris"}' }])
        await fake.nextRequest()

        fake.behavior = { ...defaultFakeBehavior(), name: 'fake-r', speaksResponses }
        const second = await client.responses.create({ model: DEFAULT_MODEL_ID, input: conversation, tools: [weatherTool] })
        expect(second.output_text).toBe('Hello from the model')
        const sent = await fake.nextRequest()
        if (speaksResponses) {
          expect(sent.body).toMatchObject({
            input: [
              { type: 'message', role: 'user', content: 'Weather in Paris?' },
              { type: 'function_call', call_id: 'call_up1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'function_call_output', call_id: 'call_up1', output: '18 C' },
            ],
            tools: [{ type: 'function', name: 'get_weather' }],
          })
        } else {
          expect(sent.body).toMatchObject({
            messages: [
              { role: 'user', content: 'Weather in Paris?' },
              { role: 'assistant', content: null, tool_calls: [{ id: 'call_up1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
              { role: 'tool', tool_call_id: 'call_up1', content: '18 C' },
            ],
            tools: [{ type: 'function', function: { name: 'get_weather' } }],
          })
        }
      })
    }

    it('a server that breaks off mid-reply: an error event, then response.failed, and nothing after', async () => {
      fake.behavior.mode = 'die-mid-stream'
      fake.behavior.dieAfterChunks = speaksResponses ? 4 : 2
      const response = await gw.post('/v1/responses', { input: 'Hi', stream: true })
      expect(response.status).toBe(200)
      const frames = await readEvents(response)
      const names = frames.map((frame) => frame.slice('event: '.length, frame.indexOf('\n')))
      expect(names.slice(0, 2)).toEqual(['response.created', 'response.in_progress'])
      expect(names.slice(-2)).toEqual(['error', 'response.failed'])
      const payloads = frames.map((frame) => JSON.parse(frame.slice(frame.indexOf('data: ') + 6)) as { sequence_number: number; code?: string; response?: { status: string; error: unknown } })
      expect(payloads.map((p) => p.sequence_number)).toEqual([...payloads.keys()])
      expect(payloads.at(-2)).toMatchObject({ code: 'upstream_error' })
      expect(payloads.at(-1)?.response).toMatchObject({ status: 'failed', error: { code: 'upstream_error' } })
      await fake.nextRequest()
    })

    it('a reply the server cut at its limit is incomplete', async () => {
      fake.behavior.finishReason = 'length'
      const response = await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'Hi', max_output_tokens: 4 })
      expect(response.status).toBe('incomplete')
      expect(response.incomplete_details).toEqual({ reason: 'max_output_tokens' })
      await fake.nextRequest()
    })
  })
}

describe('a replica without /v1/responses is asked in chat completions from then on', () => {
  it('asks once natively, then only in chat completions', async () => {
    const fake = await startFakeModelServer({ name: 'chat-only' })
    const gw = await startTestGateway(['--upstream', fake.url])
    try {
      const client = gw.client()
      for (let i = 0; i < 2; i++) expect((await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'Hi' })).output_text).toBe('Hello from the model')
      expect(fake.otherRequests.filter((r) => r.path === '/v1/responses')).toHaveLength(1)
      expect(fake.requests.map((r) => r.path)).toEqual(['/v1/chat/completions', '/v1/chat/completions'])
    } finally {
      await gw.close()
      await fake.close()
    }
  })
})
