import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { zodResponseFormat } from 'openai/helpers/zod'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import type { CreatedApiKey } from '../shared/api/keys'
import { dataPayloads, readEvents, startTestGateway, type TestGateway } from './harness'

// The openai SDK, unmodified, against both dialects. Paced so that a stream is still running when
// a test stops it; every wait is on an event (a chunk arriving), never a sleep.
const LONG_TEXT = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')
const WEATHER_TOOL = {
  type: 'function' as const,
  function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
}

let openaiGateway: TestGateway
let mortarGateway: TestGateway
beforeAll(async () => {
  ;[openaiGateway, mortarGateway] = await Promise.all([
    startTestGateway(['--dialect', 'openai', '--scripted-tps', '400']),
    startTestGateway(['--scripted-tps', '400']),
  ])
})
afterAll(() => Promise.all([openaiGateway.close(), mortarGateway.close()]))

const ask = (content: string) => ({ messages: [{ role: 'user' as const, content }] })
const stopGeneration = (gw: TestGateway, id: string) => gw.post(`/v1/generations/${id}/stop`, {})

describe('the OpenAI dialect (mortar serve --dialect openai), with the openai SDK', () => {
  it('says so at start-up', () => {
    expect(openaiGateway.output).toContain('  Dialect:         openai (from --dialect; a key\'s own dialect wins)')
    expect(mortarGateway.output).toContain('  Dialect:         mortar (the default; a key\'s own dialect wins)')
  })

  it('answers create() without `stream` with a JSON completion, and says which dialect answered', async () => {
    const { data, response } = await openaiGateway.client().chat.completions.create({ model: DEFAULT_MODEL_ID, ...ask('Hello there') }).withResponse()
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
    expect(response.headers.get('x-mortar-dialect')).toBe('openai')
    expect(data).toMatchObject({ object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'Hello there' }, finish_reason: 'stop' }] })
  })

  it('parses a zod response format with chat.completions.parse()', async () => {
    const Weather = z.object({ city: z.string(), temp_c: z.number() })
    const completion = await openaiGateway.client().chat.completions.parse({
      model: DEFAULT_MODEL_ID,
      messages: [{ role: 'user', content: JSON.stringify({ city: 'Paris', temp_c: 21 }) }],
      response_format: zodResponseFormat(Weather, 'weather'),
    })
    expect(completion.choices[0]?.message.parsed).toEqual({ city: 'Paris', temp_c: 21 })
  })

  it('assembles a stream with stream().finalChatCompletion(), usage included', async () => {
    const stream = openaiGateway.client().chat.completions.stream({ model: DEFAULT_MODEL_ID, ...ask('one two three'), stream_options: { include_usage: true } })
    const completion = await stream.finalChatCompletion()
    expect(completion.choices[0]).toMatchObject({ message: { role: 'assistant', content: 'one two three' }, finish_reason: 'stop' })
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0)
  })

  it('assembles streamed tool calls with finalChatCompletion()', async () => {
    const stream = openaiGateway.client().chat.completions.stream({ model: DEFAULT_MODEL_ID, ...ask('Weather in Paris?'), tools: [WEATHER_TOOL] })
    const completion = await stream.finalChatCompletion()
    expect(completion.choices[0]?.finish_reason).toBe('tool_calls')
    expect(completion.choices[0]?.message.tool_calls).toMatchObject([{ type: 'function', function: { name: 'get_weather', arguments: '{"city":""}' } }])
  })

  it('gives the finish chunk an empty delta', async () => {
    const response = await openaiGateway.post('/v1/chat/completions', { ...ask('hi'), stream: true, stream_options: { include_usage: true } })
    const chunks = dataPayloads(await readEvents(response))
    expect(chunks.at(-2)).toMatchObject({ choices: [{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }] })
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { total_tokens: expect.any(Number) } })
  })

  it('ends a stream stopped by POST /v1/generations/{id}/stop with a `stop` finish chunk, so finalChatCompletion() resolves', async () => {
    const stream = openaiGateway.client().chat.completions.stream({ model: DEFAULT_MODEL_ID, ...ask(LONG_TEXT), stream_options: { include_usage: true } })
    // Asked for at once, before the stop: the helper treats an ending nobody awaits yet as unhandled.
    const final = stream.finalChatCompletion()
    const id = await new Promise<string>((resolve) => stream.once('chunk', (chunk) => resolve(chunk.id)))
    expect((await stopGeneration(openaiGateway, id)).status).toBe(200)
    const completion = await final
    expect(completion.choices[0]?.finish_reason).toBe('stop')
    const content = completion.choices[0]?.message.content ?? ''
    expect(LONG_TEXT.startsWith(content)).toBe(true)
    expect(content.length).toBeLessThan(LONG_TEXT.length)
    expect(completion.usage?.completion_tokens).toBeGreaterThan(0)
    await vi.waitFor(() => expect(openaiGateway.completions.find((record) => record.id === id)?.outcome).toBe('stopped'))
  })

  it('still streams when asked to, and a key of the Mortar dialect gets the spec\'s defaults', async () => {
    const mortarKey = openaiGateway.createKey({ dialect: 'mortar' })
    const response = await openaiGateway.post('/v1/chat/completions', ask('hi'), { Authorization: `Bearer ${mortarKey}` })
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(response.headers.get('x-mortar-dialect')).toBe('mortar')
    const finish = dataPayloads(await readEvents(response)).at(-1)
    expect(finish).toEqual(expect.objectContaining({ choices: [{ index: 0, logprobs: null, finish_reason: 'stop' }] }))
  })
})

describe('the Mortar dialect (the default) does what the spec says for the same calls', () => {
  it('streams when `stream` is left out, and says which dialect answered', async () => {
    const response = await mortarGateway.post('/v1/chat/completions', ask('hi'))
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    expect(response.headers.get('x-mortar-dialect')).toBe('mortar')
    const events = await readEvents(response)
    expect(events.at(-1)).toBe('data: [DONE]')
    // The finish chunk has no delta.
    expect(dataPayloads(events).at(-1)).toEqual(expect.objectContaining({ choices: [{ index: 0, logprobs: null, finish_reason: 'stop' }] }))
  })

  it('sends no finish chunk for a stopped stream, which finalChatCompletion() refuses', async () => {
    const stream = mortarGateway.client().chat.completions.stream({ model: DEFAULT_MODEL_ID, ...ask(LONG_TEXT) })
    // Its refusal is awaited from the start: it may come before the stop request's own answer.
    const refused = expect(stream.finalChatCompletion()).rejects.toThrow('missing finish_reason for choice 0')
    const id = await new Promise<string>((resolve) => stream.once('chunk', (chunk) => resolve(chunk.id)))
    expect((await stopGeneration(mortarGateway, id)).status).toBe(200)
    await refused
  })

  it('answers a key of the OpenAI dialect in that dialect', async () => {
    const openaiKey = mortarGateway.createKey({ dialect: 'openai' })
    const { data, response } = await mortarGateway.client(openaiKey).chat.completions.create({ model: DEFAULT_MODEL_ID, ...ask('Hello') }).withResponse()
    expect(response.headers.get('x-mortar-dialect')).toBe('openai')
    expect(data).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: 'Hello' } }] })
  })

  it('says which dialect answered on errors too', async () => {
    const response = await mortarGateway.post('/v1/chat/completions', { messages: [] })
    expect(response.status).toBe(400)
    expect(response.headers.get('x-mortar-dialect')).toBe('mortar')
  })
})

describe('choosing the dialect', () => {
  it("takes config.json's `dialect` over --dialect, and applies an edit from the next request on", async () => {
    const gw = await startTestGateway(['--dialect', 'openai'])
    try {
      const dialectOfNextReply = async () => (await gw.post('/v1/chat/completions', { ...ask('hi'), stream: false })).headers.get('x-mortar-dialect')
      expect(await dialectOfNextReply()).toBe('openai')
      writeFileSync(join(gw.home, 'config.json'), JSON.stringify({ dialect: 'mortar' }))
      await vi.waitFor(async () => expect(await dialectOfNextReply()).toBe('mortar'), { timeout: 3_000, interval: 20 })
      expect(gw.server.catalog.dialect()).toEqual({ dialect: 'mortar', source: 'config.json' })
    } finally {
      await gw.close()
    }
  })

  it('refuses an unknown dialect in config.json by name', async () => {
    const gw = await startTestGateway()
    try {
      writeFileSync(join(gw.home, 'config.json'), JSON.stringify({ dialect: 'anthropic' }))
      await expect(startTestGateway([], { home: gw.home })).rejects.toThrow(/config\.json.*dialect.*'mortar' or 'openai'/s)
    } finally {
      await gw.close()
    }
  })

  it('creates, lists and rotates keys with their dialect over /v1/keys', async () => {
    const call = (method: string, path: string, body?: unknown) =>
      fetch(`${mortarGateway.url}/v1/keys${path}`, {
        method,
        headers: { Authorization: `Bearer ${mortarGateway.ownerKey}` },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      })
    const created = (await (await call('POST', '', { name: 'ai-sdk', dialect: 'openai' })).json()) as CreatedApiKey
    expect(created).toMatchObject({ name: 'ai-sdk', dialect: 'openai' })
    const plain = (await (await call('POST', '', { name: 'continue' })).json()) as CreatedApiKey
    expect(plain.dialect).toBeNull()
    const listed = (await (await call('GET', '')).json()) as { data: CreatedApiKey[] }
    expect(listed.data.find((k) => k.id === created.id)?.dialect).toBe('openai')
    const rotated = (await (await call('POST', `/${created.id}/rotate`)).json()) as CreatedApiKey
    expect(rotated.dialect).toBe('openai')
    const completion = await mortarGateway.client(rotated.key).chat.completions.create({ model: DEFAULT_MODEL_ID, ...ask('still JSON') })
    expect(completion).toMatchObject({ object: 'chat.completion' })
    const refused = await call('POST', '', { name: 'x', dialect: 'anthropic' })
    expect(refused.status).toBe(400)
    expect(((await refused.json()) as { error: { param: string; message: string } }).error).toMatchObject({ param: 'dialect', message: "Invalid `dialect`: must be 'mortar' or 'openai'." })
  })
})
