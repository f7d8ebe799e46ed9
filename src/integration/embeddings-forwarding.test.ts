import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { FAKE_DIMENSIONS, fakeVector, startFakeEmbeddingsServer, type EmbeddingsFlavor, type FakeEmbeddingsServer } from './fixtures/fake-embeddings-server'
import { startTestGateway, subscribeTelemetry, type TestGateway } from './harness'
import { endOf, trafficClient } from './traffic-client'

// POST /v1/embeddings through `mortar serve --upstream`: forwarded to the model server's own
// /v1/embeddings (vLLM, llama.cpp and Ollama reply shapes), vectors asked for as floats and given
// to the client as it asked; a server without embeddings is a 501 that is remembered per replica.
const MODEL = DEFAULT_MODEL_ID

let fake: FakeEmbeddingsServer
let gw: TestGateway
beforeAll(async () => {
  fake = await startFakeEmbeddingsServer('vllm')
  gw = await startTestGateway(['--upstream', fake.url, '--upstream-model', 'bge-small'])
})
afterAll(async () => {
  await gw.close()
  await fake.close()
})

const float32 = (values: number[]) => Array.from(Float32Array.from(values))

describe('openai SDK embeddings.create through a model server', () => {
  for (const flavor of ['vllm', 'llama.cpp', 'ollama'] as const) {
    it(`${flavor}: base64 by default and float, the server's vectors and usage`, async () => {
      fake.flavor = flavor
      const client = gw.client()
      const input = ['first text', 'the second text']
      const asDefault = await client.embeddings.create({ model: MODEL, input })
      const asFloat = await client.embeddings.create({ model: MODEL, input, encoding_format: 'float' })
      const expected = input.map((text, index) => fakeVector(index, text))
      // base64 carries float32: the server's numbers as float32 holds them.
      expect(asDefault.data.map((item) => item.embedding)).toEqual(expected.map(float32))
      expect(asFloat.data.map((item) => item.embedding)).toEqual(expected)
      expect(asFloat).toMatchObject({ object: 'list', model: MODEL, usage: { prompt_tokens: 6, total_tokens: 6 } })
      expect(asFloat.data.map((item) => [item.object, item.index])).toEqual([['embedding', 0], ['embedding', 1]])
      // What the server was sent: its own model name, the inputs, floats asked for either way.
      const [first, second] = fake.requests.slice(-2)
      expect(first!.body).toEqual({ model: 'bge-small', input, encoding_format: 'float' })
      expect(second!.body).toEqual(first!.body)
    })
  }

  it('passes dimensions, user and fields it does not know to the server; token arrays as sent', async () => {
    fake.flavor = 'vllm'
    const response = await gw.post('/v1/embeddings', { model: MODEL, input: [[1, 2, 3]], dimensions: 4, user: 'indexer', truncate_prompt_tokens: 32 })
    expect(response.status).toBe(200)
    expect(response.headers.get('x-mortar-upstream')).toBe(fake.host)
    expect(response.headers.get('x-mortar-deployment')).toBe('upstream')
    expect(fake.requests.at(-1)!.body).toEqual({ truncate_prompt_tokens: 32, model: 'bge-small', input: [[1, 2, 3]], encoding_format: 'float', dimensions: 4, user: 'indexer' })
  })

  it('counts the tokens itself when the server reports no usage', async () => {
    fake.flavor = 'no-usage'
    const reply = await gw.client().embeddings.create({ model: MODEL, input: 'hello world', encoding_format: 'float' })
    expect(reply.data[0]!.embedding).toHaveLength(FAKE_DIMENSIONS)
    // Qwen2.5: 'hello', ' world'.
    expect(reply.usage).toEqual({ prompt_tokens: 2, total_tokens: 2 })
  })

  it('is captured: the model, the replica, what the server was sent and its reply', async () => {
    fake.flavor = 'vllm'
    const live = await trafficClient(gw.url, gw.ownerKey).live()
    try {
      await gw.client().embeddings.create({ model: MODEL, input: 'captured text' }, { headers: { 'x-request-id': 'emb-capture-1' } })
      const ended = await live.next(endOf('emb-capture-1'), 10_000)
      const exchange = await trafficClient(gw.url, gw.ownerKey).exchange(ended.type === 'exchange.ended' ? ended.exchange.id : '')
      expect(exchange).toMatchObject({
        endpoint: '/v1/embeddings',
        status: 200,
        outcome: 'finished',
        model: MODEL,
        deployment: 'upstream',
        replica: fake.host,
        stream: false,
        usage: { prompt_tokens: 3, completion_tokens: 0, total_tokens: 3 },
        usage_source: 'upstream',
      })
      expect(JSON.parse(exchange.model_body ?? '')).toEqual({ model: 'bge-small', input: ['captured text'], encoding_format: 'float' })
      expect(JSON.parse(exchange.upstream?.response_body ?? '')).toMatchObject({ object: 'list', model: 'bge-small' })
      expect(JSON.parse(exchange.response.body ?? '')).toMatchObject({ object: 'list', data: [{ index: 0 }] })
    } finally {
      live.close()
    }
  })
})

describe('a model server without embeddings', () => {
  const servers: Array<{ close(): Promise<void> }> = []
  afterEach(async () => {
    for (const server of servers.splice(0).reverse()) await server.close()
  })
  const gatewayBefore = async (...flavors: EmbeddingsFlavor[]) => {
    const fakes = await Promise.all(flavors.map((flavor) => startFakeEmbeddingsServer(flavor)))
    servers.push(...fakes)
    const gateway = await startTestGateway(fakes.flatMap((one) => ['--upstream', one.url]))
    servers.push(gateway)
    return { fakes, gateway }
  }

  for (const [flavor, said] of [
    ['vllm-missing', 'HTTP 404: Not Found'],
    ['vllm-generative', 'HTTP 400: The model does not support Embeddings API'],
    ['llama.cpp-disabled', 'HTTP 501: This server does not support embeddings. Start it with `--embeddings`'],
  ] as const) {
    it(`${flavor}: 501 upstream_not_supported with what it said, and it is not asked again`, async () => {
      const { fakes, gateway } = await gatewayBefore(flavor)
      for (let attempt = 0; attempt < 2; attempt++) {
        const response = await gateway.post('/v1/embeddings', { model: MODEL, input: 'x' })
        expect(response.status).toBe(501)
        expect(response.headers.get('x-should-retry')).toBe('false')
        const { error } = (await response.json()) as { error: Record<string, unknown> }
        expect(error).toMatchObject({ type: 'upstream_error', code: 'upstream_not_supported', param: 'model' })
        expect(error.message).toContain(`${fakes[0]!.host} (${said})`)
      }
      expect(fakes[0]!.requests).toHaveLength(1)
      // The SDK raises it as the API's error, with the status.
      await expect(gateway.client().embeddings.create({ model: MODEL, input: 'x' })).rejects.toMatchObject({ status: 501, code: 'upstream_not_supported' })
    })
  }

  it('ends in telemetry as request.failed with its code', async () => {
    const { gateway } = await gatewayBefore('llama.cpp-disabled')
    const telemetry = await subscribeTelemetry(gateway, gateway.ownerKey)
    try {
      expect((await gateway.post('/v1/embeddings', { model: MODEL, input: 'x' })).status).toBe(501)
      expect(await telemetry.next()).toMatchObject({ type: 'request.accepted', deployment: 'upstream', stream: false })
      expect(await telemetry.next()).toMatchObject({ type: 'request.failed', error_code: 'upstream_not_supported', upstream: null, usage: { prompt_tokens: 0, total_tokens: 0 } })
    } finally {
      telemetry.close()
    }
  })

  it('a replica without embeddings is passed over for one that has them', async () => {
    const { fakes, gateway } = await gatewayBefore('llama.cpp-disabled', 'llama.cpp')
    for (let attempt = 0; attempt < 4; attempt++) {
      const reply = await gateway.client().embeddings.create({ model: MODEL, input: 'x', encoding_format: 'float' })
      expect(reply.data[0]!.embedding).toEqual(fakeVector(0, 'x'))
    }
    expect(fakes[0]!.requests.length).toBeLessThanOrEqual(1)
    expect(fakes[1]!.requests.length).toBeGreaterThanOrEqual(3)
  })

  it("an unknown model (Ollama's 404 that names it) is the server's refusal, not a missing endpoint", async () => {
    const { fakes, gateway } = await gatewayBefore('ollama-unknown-model')
    for (let attempt = 0; attempt < 2; attempt++) {
      const response = await gateway.post('/v1/embeddings', { model: MODEL, input: 'x' })
      expect(response.status).toBe(502)
      expect(response.headers.get('x-should-retry')).toBe('false')
      const { error } = (await response.json()) as { error: Record<string, unknown> }
      expect(error).toMatchObject({ type: 'upstream_error', code: 'upstream_error' })
      expect(error.message).toContain('not found, try pulling it first')
    }
    expect(fakes[0]!.requests).toHaveLength(2)
  })
})
