import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  chatCompletionChunkSchema,
  chatCompletionSchema,
  modelListSchema,
  stopGenerationResponseSchema,
} from '../shared/api/chat-response'
import { dataPayloads, nextRegisteredGeneration, readEvents, startTestGateway, userMessage, type TestGateway } from './harness'

// What the gateway writes is what the response schemas say, field for field: a parse that keeps
// everything (zod drops keys it does not know, so an extra field would make the two differ) and
// fails on anything missing or of the wrong kind. Both dialects, JSON and stream, tools and usage.

let mortar: TestGateway
let openai: TestGateway
beforeAll(async () => {
  ;[mortar, openai] = await Promise.all([startTestGateway(['--scripted-tps', '400']), startTestGateway(['--dialect', 'openai'])])
})
afterAll(() => Promise.all([mortar.close(), openai.close()]))

function expectExactly<S extends z.ZodType>(schema: S, value: unknown): void {
  const parsed = schema.safeParse(value)
  expect(parsed.success, parsed.success ? '' : `${parsed.error.message}\n${JSON.stringify(value)}`).toBe(true)
  if (parsed.success) expect(parsed.data).toEqual(value)
}

const weatherTool = { type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }

describe.each([
  ['mortar', () => mortar],
  ['openai', () => openai],
] as const)('the %s dialect', (_dialect, gateway) => {
  it('answers a completion, with and without a tool call, as chatCompletionSchema has it', async () => {
    for (const body of [
      { ...userMessage('Hello there'), stream: false },
      { ...userMessage('the weather in Paris'), stream: false, tools: [weatherTool], tool_choice: 'required' },
    ]) {
      const response = await gateway().post('/v1/chat/completions', body)
      expect(response.status).toBe(200)
      expectExactly(chatCompletionSchema, await response.json())
    }
  })

  it('streams every chunk, the usage chunk and tool-call pieces too, as chatCompletionChunkSchema has it', async () => {
    for (const body of [
      { ...userMessage('one two three'), stream: true, stream_options: { include_usage: true } },
      { ...userMessage('the weather in Paris'), stream: true, tools: [weatherTool], tool_choice: 'required' },
    ]) {
      const chunks = dataPayloads(await readEvents(await gateway().post('/v1/chat/completions', body)))
      expect(chunks.length).toBeGreaterThan(2)
      for (const chunk of chunks) expectExactly(chatCompletionChunkSchema, chunk)
    }
  })

  it('lists models as modelListSchema has it', async () => {
    const response = await fetch(`${gateway().url}/v1/models`, { headers: { Authorization: `Bearer ${gateway().ownerKey}` } })
    expectExactly(modelListSchema, await response.json())
  })
})

it('answers a stop as stopGenerationResponseSchema has it', async () => {
  const registered = nextRegisteredGeneration(mortar)
  const pending = mortar.post('/v1/chat/completions', userMessage('word '.repeat(400)))
  const id = await registered
  const stop = await mortar.post(`/v1/generations/${id}/stop`, {})
  expectExactly(stopGenerationResponseSchema, await stop.json())
  await readEvents(await pending)
})
