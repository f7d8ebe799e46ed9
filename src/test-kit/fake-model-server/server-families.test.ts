import OpenAI from 'openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadRecording } from '../../integration/fixtures/recordings'
import { SERVER_FAMILY_NAMES, type ServerFamilyName } from './server-families'
import { defaultFakeBehavior, startFakeModelServer, type FakeModelServer } from '.'

// The families are only worth what they resemble: each is held to recordings of the real server
// (src/integration/fixtures/recordings) — same frames, same keys in the same order, same kinds of
// values — and read back by the openai SDK.

let fake: FakeModelServer
beforeAll(async () => {
  fake = await startFakeModelServer()
})
afterAll(() => fake.close())

type Json = Record<string, unknown>

/** A value with its strings, numbers and booleans replaced by their kinds; keys keep their order. */
function shapeOf(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(shapeOf)
  if (typeof value === 'object' && value !== null) return Object.entries(value).map(([key, inner]) => [key, shapeOf(inner)])
  return value === null ? null : typeof value
}

const payloadsOf = (sse: string): Json[] =>
  sse
    .split('\n\n')
    .filter((frame) => frame.startsWith('data: ') && frame !== 'data: [DONE]')
    .map((frame) => JSON.parse(frame.slice('data: '.length)) as Json)

interface Pieces {
  deltas: string[]
  reasoning: string[]
  usage: Json | undefined
  model: string
}

/** What the recorded server generated: its content and reasoning pieces, usage and model name. */
function piecesOf(payloads: Json[]): Pieces {
  const pieces: Pieces = { deltas: [], reasoning: [], usage: undefined, model: String(payloads[0]?.model) }
  for (const payload of payloads) {
    if (payload.usage !== null && payload.usage !== undefined) pieces.usage = payload.usage as Json
    const choice = (payload.choices as Array<{ delta: Json; finish_reason: string | null }>)[0]
    if (choice === undefined || choice.finish_reason !== null) continue
    const reasoning = choice.delta.reasoning_content ?? choice.delta.reasoning
    if (typeof reasoning === 'string' && reasoning !== '') pieces.reasoning.push(reasoning)
    else if (typeof choice.delta.content === 'string' && choice.delta.content !== '') pieces.deltas.push(choice.delta.content)
  }
  return pieces
}

const streamFrom = async (family: ServerFamilyName, pieces: Pieces): Promise<string> => {
  fake.behavior = {
    ...defaultFakeBehavior(),
    family,
    deltas: pieces.deltas,
    reasoning: pieces.reasoning,
    model: pieces.model,
    usage: pieces.usage as never,
  }
  const response = await fetch(`${fake.url}/chat/completions`, {
    method: 'POST',
    body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } }),
  })
  return response.text()
}

describe('each family streams as its server does', () => {
  const cases: Array<[ServerFamilyName, string]> = [
    ['vllm', 'vllm-text'],
    ['vllm', 'vllm-reasoning'],
    ['llama.cpp', 'llamacpp-text'],
    ['llama.cpp', 'llamacpp-reasoning'],
    ['ollama', 'ollama-text'],
    ['ollama', 'ollama-reasoning'],
    ['sglang', 'sglang-text'],
    ['sglang', 'sglang-reasoning'],
  ]
  it.each(cases)('%s: the frames of %s', async (family, name) => {
    const recorded = payloadsOf(loadRecording(name).replay.body)
    const sent = payloadsOf(await streamFrom(family, piecesOf(recorded)))
    expect(sent.map(shapeOf)).toEqual(recorded.map(shapeOf))
    expect(piecesOf(sent)).toEqual(piecesOf(recorded))
  })
})

describe('every family reads as OpenAI to the openai SDK', () => {
  it.each(SERVER_FAMILY_NAMES)('%s: content, reasoning and usage streamed; the same message as JSON', async (family) => {
    fake.behavior = { ...defaultFakeBehavior(), family, reasoning: ['Think', 'ing.'] }
    const client = new OpenAI({ baseURL: fake.url, apiKey: 'none', maxRetries: 0 })
    const stream = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } })
    let content = ''
    let reasoning = ''
    let usage: unknown
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta as (Json & { content?: string | null }) | undefined
      content += delta?.content ?? ''
      const piece = delta?.reasoning_content ?? delta?.reasoning
      if (typeof piece === 'string') reasoning += piece
      if (chunk.usage) usage = chunk.usage
    }
    expect(content).toBe('Hello from the model')
    expect(reasoning).toBe('Thinking.')
    expect(usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 })

    const whole = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
    expect(whole.choices[0]?.message.content).toBe('Hello from the model')
    expect(whole.choices[0]?.finish_reason).toBe('stop')
  })

  it.each(SERVER_FAMILY_NAMES)('%s: tool-call pieces accumulate to the calls its JSON answer has', async (family) => {
    fake.behavior = {
      ...defaultFakeBehavior(),
      family,
      finishReason: 'tool_calls',
      toolCallPieces: [
        { index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } },
        { index: 0, function: { arguments: '{"city":' } },
        { index: 0, function: { arguments: '"Oslo"}' } },
      ],
    }
    const client = new OpenAI({ baseURL: fake.url, apiKey: 'none', maxRetries: 0 })
    const streamed = await client.chat.completions.stream({ model: 'm', messages: [{ role: 'user', content: 'hi' }], stream: true }).finalChatCompletion()
    const whole = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })
    const call = { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } }
    expect(streamed.choices[0]?.message.tool_calls).toMatchObject([call])
    expect(whole.choices[0]?.message.tool_calls).toMatchObject([call])
  })
})

describe('what each family answers beside chat', () => {
  const notFound: Record<ServerFamilyName, { contentType: string; body: string }> = {
    plain: { contentType: 'application/json', body: '{"error":{"message":"no route for POST /v1/embeddings","type":"invalid_request_error","param":null,"code":null}}' },
    openai: { contentType: 'application/json', body: '{"error":{"message":"Invalid URL (POST /v1/embeddings)","type":"invalid_request_error","param":null,"code":null}}' },
    vllm: { contentType: 'application/json', body: '{"detail":"Not Found"}' },
    'llama.cpp': { contentType: 'application/json', body: '{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}' },
    ollama: { contentType: 'text/plain', body: '404 page not found' },
    sglang: { contentType: 'application/json', body: '{"detail":"Not Found"}' },
  }
  it.each(SERVER_FAMILY_NAMES)('%s: a 404 in its own words for an endpoint it lacks', async (family) => {
    fake.behavior = { ...defaultFakeBehavior(), family }
    const response = await fetch(`${fake.url}/embeddings`, { method: 'POST', body: '{"input":"x"}' })
    expect(response.status).toBe(404)
    expect(response.headers.get('content-type')).toBe(notFound[family].contentType)
    expect(await response.text()).toBe(notFound[family].body)
  })

  it.each(SERVER_FAMILY_NAMES)('%s: an error status the openai SDK raises, with the message in its body', async (family) => {
    fake.behavior = { ...defaultFakeBehavior(), family, mode: 'error-status', errorStatus: 503, errorMessage: 'Loading model' }
    const client = new OpenAI({ baseURL: fake.url, apiKey: 'none', maxRetries: 0 })
    const error = await client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(503)
    // SGLang's envelope has no `error` key ({"object": "error", "message": …}), so the SDK cannot
    // surface its message: a gateway has to read it from the body.
    const response = await fetch(`${fake.url}/chat/completions`, { method: 'POST', body: '{}' })
    expect(response.status).toBe(503)
    expect(await response.text()).toContain('"message":"Loading model"')
  })
})
