import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCRIPTED_EMBEDDING_DIMENSIONS } from '../gateway/backends/scripted/hashed-embedding'
import { MAX_SCRIPTED_EMBEDDING_TOKENS } from '../gateway/backends/scripted/scripted-embeddings'
import { startTestGateway, subscribeTelemetry, type TestGateway } from './harness'

// POST /v1/embeddings against a real `mortar serve` with the scripted model, through the openai
// SDK unmodified: its default asks for base64 and decodes it; `encoding_format: 'float'` is read as sent.
const MODEL = DEFAULT_MODEL_ID

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

const cosine = (a: readonly number[], b: readonly number[]) => a.reduce((sum, value, i) => sum + value * b[i]!, 0)
const norm = (a: readonly number[]) => Math.sqrt(cosine(a, a))

describe('openai SDK embeddings.create, scripted model', () => {
  it('by default (base64, decoded by the SDK): unit vectors, 384 wide, with usage', async () => {
    const reply = await gw.client().embeddings.create({ model: MODEL, input: ['The quick brown fox', 'jumps over the lazy dog'] })
    expect(reply.object).toBe('list')
    expect(reply.model).toBe(MODEL)
    expect(reply.data.map((item) => [item.object, item.index, item.embedding.length])).toEqual([
      ['embedding', 0, SCRIPTED_EMBEDDING_DIMENSIONS],
      ['embedding', 1, SCRIPTED_EMBEDDING_DIMENSIONS],
    ])
    for (const item of reply.data) expect(norm(item.embedding)).toBeCloseTo(1, 5)
    // Qwen2.5's tokens: 'The',' quick',' brown',' fox' and 'j','umps',' over',' the',' lazy',' dog'.
    expect(reply.usage).toEqual({ prompt_tokens: 10, total_tokens: 10 })
  })

  it('float and base64 carry the same numbers', async () => {
    const client = gw.client()
    const input = 'export const answer = 42'
    const asFloat = await client.embeddings.create({ model: MODEL, input, encoding_format: 'float' })
    const asDefault = await client.embeddings.create({ model: MODEL, input })
    const raw = await client.embeddings.create({ model: MODEL, input, encoding_format: 'base64' })
    expect(typeof raw.data[0]!.embedding).toBe('string')
    expect(Array.isArray(asFloat.data[0]!.embedding)).toBe(true)
    expect(asDefault.data[0]!.embedding).toEqual(asFloat.data[0]!.embedding)
  })

  it('near-duplicates are closer than unrelated texts', async () => {
    const reply = await gw.client().embeddings.create({
      model: MODEL,
      input: ['function add(a, b) { return a + b }', 'function add(x, y) { return x + y }', 'The museum opens at nine on Sundays.'],
    })
    const [text, near, far] = reply.data.map((item) => item.embedding)
    expect(cosine(text!, near!)).toBeGreaterThan(cosine(text!, far!) + 0.4)
  })

  it('`dimensions` sets the width; token arrays are embedded as the ids they are', async () => {
    const client = gw.client()
    const narrow = await client.embeddings.create({ model: MODEL, input: 'hello world', dimensions: 64 })
    expect(narrow.data[0]!.embedding).toHaveLength(64)
    const tokens = await client.embeddings.create({ model: MODEL, input: [[14990, 1879], [14990]], encoding_format: 'float' })
    // 'hello world' is 14990, 1879 in Qwen2.5's vocabulary: the same vector either way.
    const text = await client.embeddings.create({ model: MODEL, input: 'hello world', encoding_format: 'float' })
    expect(tokens.data[0]!.embedding).toEqual(text.data[0]!.embedding)
    expect(tokens.usage.prompt_tokens).toBe(3)
  })
})

describe('POST /v1/embeddings refusals, in the OpenAI envelope', () => {
  const refused = async (body: unknown) => {
    const response = await gw.post('/v1/embeddings', body)
    return { status: response.status, retry: response.headers.get('x-should-retry'), body: (await response.json()) as { error: Record<string, unknown> } }
  }

  it('names the field that is wrong', async () => {
    const bad = await refused({ model: MODEL, input: ['ok', ''] })
    expect(bad).toEqual({
      status: 400,
      retry: 'false',
      body: { error: { message: 'Invalid `input[1]`: must not be empty.', type: 'invalid_request_error', param: 'input[1]', code: 'invalid_request' } },
    })
    expect((await refused({ model: MODEL, input: 'x', encoding_format: 'binary' })).body.error.param).toBe('encoding_format')
    expect((await refused({ model: MODEL })).body.error.param).toBe('input')
  })

  it('an unknown model is 404 model_not_found', async () => {
    const bad = await refused({ model: 'text-embedding-3-small', input: 'x' })
    expect(bad.status).toBe(404)
    expect(bad.body.error.code).toBe('model_not_found')
  })

  it('an input longer than the limit is 400 context_length_exceeded, naming it', async () => {
    const bad = await refused({ model: MODEL, input: ['short', 'word '.repeat(MAX_SCRIPTED_EMBEDDING_TOKENS + 10)] })
    expect(bad.status).toBe(400)
    expect(bad.body.error).toMatchObject({ code: 'context_length_exceeded', param: 'input[1]' })
  })

  it('wants a key, and POST', async () => {
    const response = await fetch(`${gw.url}/v1/embeddings`, { method: 'POST', body: JSON.stringify({ input: 'x' }) })
    expect(response.status).toBe(401)
    const get = await fetch(`${gw.url}/v1/embeddings`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(get.status).toBe(405)
    expect(get.headers.get('allow')).toBe('POST')
  })
})

describe('telemetry', () => {
  it('an embeddings request is accepted, then finished with its usage, under its embd- id', async () => {
    const telemetry = await subscribeTelemetry(gw, gw.ownerKey)
    try {
      const response = await gw.client().embeddings.create({ model: MODEL, input: ['hello world', 'hello'] }, { headers: { 'X-Mortar-Session': 'indexer' } }).withResponse()
      const id = response.response.headers.get('x-mortar-request-id')
      expect(id).toMatch(/^embd-[0-9a-f]{24}$/)
      const accepted = await telemetry.next()
      expect(accepted).toMatchObject({ type: 'request.accepted', id, session: 'indexer', model: MODEL, deployment: 'scripted', stream: false, key_name: 'default' })
      const finished = await telemetry.next()
      expect(finished).toMatchObject({
        type: 'request.finished',
        id,
        finish_reason: null,
        error_code: null,
        usage: { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 },
        usage_source: 'estimate',
        cost_usd: null,
      })
    } finally {
      telemetry.close()
    }
  })
})
