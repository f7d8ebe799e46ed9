import { constructLlmApi, type BaseLlmApi } from '@continuedev/openai-adapters'
import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { startTestGateway, userMessage, type TestGateway } from './harness'

// Every endpoint takes the key as `Authorization: Bearer …` or as `x-api-key` (Anthropic clients
// send only that; Continue's adapters send both), and answers without the `/v1` prefix too, for
// clients configured with a bare host (Continue's llama.cpp provider, llama.cpp's own convention).

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

const post = (path: string, body: unknown, headers: Record<string, string>) =>
  fetch(`${gw.url}${path}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })

describe('x-api-key', () => {
  it('is a key like Authorization: Bearer, on every endpoint', async () => {
    const chat = await post('/v1/chat/completions', { ...userMessage('by x-api-key'), stream: false }, { 'x-api-key': gw.ownerKey })
    expect(chat.status).toBe(200)
    expect(((await chat.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('by x-api-key')
    const completion = await post('/v1/completions', { prompt: 'by x-api-key' }, { 'x-api-key': gw.ownerKey })
    expect(completion.status).toBe(200)
    const models = await fetch(`${gw.url}/v1/models`, { headers: { 'x-api-key': gw.ownerKey } })
    expect(models.status).toBe(200)
  })

  it('the same key in both headers is that key; a malformed Authorization beside a good x-api-key is ignored', async () => {
    const both = await post('/v1/completions', { prompt: 'x' }, { Authorization: `Bearer ${gw.ownerKey}`, 'x-api-key': gw.ownerKey })
    expect(both.status).toBe(200)
    const malformed = await post('/v1/completions', { prompt: 'x' }, { Authorization: 'Basic abc', 'x-api-key': gw.ownerKey })
    expect(malformed.status).toBe(200)
  })

  it('two different keys are refused (401), even when one of them works', async () => {
    const other = gw.createKey({ name: 'other' })
    const response = await post('/v1/chat/completions', userMessage('x'), { Authorization: `Bearer ${gw.ownerKey}`, 'x-api-key': other })
    expect(response.status).toBe(401)
    const body = (await response.json()) as { error: { code: string; message: string } }
    expect(body.error.code).toBe('invalid_api_key')
    expect(body.error.message).toMatch(/two different keys/)
    expect(JSON.stringify(body)).not.toContain(other)
  })

  it('a wrong or missing key is the usual 401, naming both ways to send one', async () => {
    const wrong = await post('/v1/completions', { prompt: 'x' }, { 'x-api-key': 'mk_live_' + 'x'.repeat(40) })
    expect(wrong.status).toBe(401)
    expect(((await wrong.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key')
    const missing = await post('/v1/completions', { prompt: 'x' }, {})
    expect(missing.status).toBe(401)
    expect(((await missing.json()) as { error: { message: string } }).error.message).toMatch(/Authorization: Bearer .*x-api-key/)
  })
})

describe('routes without /v1', () => {
  it('answer as under /v1, with the same key check', async () => {
    const models = await fetch(`${gw.url}/models`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(models.status).toBe(200)
    expect(((await models.json()) as { data: Array<{ id: string }> }).data.map((m) => m.id)).toContain(DEFAULT_MODEL_ID)
    expect((await fetch(`${gw.url}/models`)).status).toBe(401)
    expect((await fetch(`${gw.url}/models/${DEFAULT_MODEL_ID}`, { headers: { 'x-api-key': gw.ownerKey } })).status).toBe(200)
    expect((await fetch(`${gw.url}/status`, { headers: { 'x-api-key': gw.ownerKey } })).status).toBe(200)
    expect((await post('/completions?x=1', { prompt: 'bare' }, { 'x-api-key': gw.ownerKey })).status).toBe(200)
    const wrongMethod = await fetch(`${gw.url}/chat/completions`, { headers: { 'x-api-key': gw.ownerKey } })
    expect(wrongMethod.status).toBe(405)
    // What is not an API route is still the UI's or unknown: no key asked.
    expect((await fetch(`${gw.url}/health`)).status).toBe(200)
    expect((await fetch(`${gw.url}/v1x/models`)).status).toBe(404)
  })

  it('the openai SDK with a bare base URL streams a chat completion; stop by id works there too', async () => {
    const client = new OpenAI({ baseURL: gw.url, apiKey: gw.ownerKey, maxRetries: 0 })
    const stream = await client.chat.completions.create({ model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'bare host' }], stream: true })
    let text = ''
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? ''
    expect(text).toBe('bare host')
    const stop = await fetch(`${gw.url}/generations/chatcmpl-unknown/stop`, { method: 'POST', headers: { 'x-api-key': gw.ownerKey } })
    expect(await stop.json()).toEqual({ stopped: false, id: 'chatcmpl-unknown' })
  })

  it("Continue's llama.cpp provider (a bare host, both key headers) gets its autocomplete", async () => {
    const api = constructLlmApi({ provider: 'llama.cpp', apiKey: gw.ownerKey, apiBase: `${gw.url}/` }) as BaseLlmApi
    let text = ''
    for await (const chunk of api.completionStream({ model: DEFAULT_MODEL_ID, prompt: '<|fim_prefix|>x = <|fim_suffix|><|fim_middle|>', max_tokens: 32, stream: true }, new AbortController().signal)) {
      text += chunk.choices.map((choice) => choice.text).join('')
    }
    expect(text).toBe('<|fim_prefix|>x = <|fim_suffix|><|fim_middle|>')
  })
})
