import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { constructLlmApi } from '@continuedev/openai-adapters'
import { OpenAIEmbeddings } from '@langchain/openai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SCRIPTED_EMBEDDING_DIMENSIONS } from '../gateway/backends/scripted/hashed-embedding'
import { startTestGateway, type TestGateway } from './harness'
import { endOf, trafficClient } from './traffic-client'

// The embedding clients of IDE tools and RAG libraries, unmodified, against a real `mortar serve`
// with the scripted model: each sends its own defaults (base64 unless told, batches, its headers).
const MODEL = DEFAULT_MODEL_ID

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

const dot = (a: readonly number[], b: readonly number[]) => a.reduce((sum, value, i) => sum + value * b[i]!, 0)

describe('LangChain OpenAIEmbeddings', () => {
  const embeddings = (options: { dimensions?: number; encodingFormat?: 'float' | 'base64' } = {}) =>
    new OpenAIEmbeddings({ model: MODEL, apiKey: gw.ownerKey, configuration: { baseURL: `${gw.url}/v1` }, maxRetries: 0, ...options })

  it('embedQuery and embedDocuments: unit vectors, the query nearest its own document', async () => {
    const documents = ['def parse_config(path): return json.load(open(path))', 'The museum opens at nine on Sundays.', 'SELECT name FROM users ORDER BY name;']
    const client = embeddings()
    const vectors = await client.embedDocuments(documents)
    expect(vectors.map((vector) => vector.length)).toEqual([SCRIPTED_EMBEDDING_DIMENSIONS, SCRIPTED_EMBEDDING_DIMENSIONS, SCRIPTED_EMBEDDING_DIMENSIONS])
    for (const vector of vectors) expect(dot(vector, vector)).toBeCloseTo(1, 5)
    const query = await client.embedQuery('def parse_config(file): return json.load(open(file))')
    const scores = vectors.map((vector) => dot(query, vector))
    expect(scores.indexOf(Math.max(...scores))).toBe(0)
  })

  it('dimensions and float encoding as it sends them', async () => {
    const vector = await embeddings({ dimensions: 32, encodingFormat: 'float' }).embedQuery('hello world')
    expect(vector).toHaveLength(32)
    expect(await embeddings({ dimensions: 32 }).embedQuery('hello world')).toEqual(vector)
  })
})

describe('Continue (@continuedev/openai-adapters), provider openai', () => {
  const continueApi = (headers: Record<string, string> = {}) => {
    const api = constructLlmApi({ provider: 'openai', apiBase: `${gw.url}/v1/`, apiKey: gw.ownerKey, requestOptions: { headers } })
    if (api === undefined) throw new Error('no adapter for provider openai')
    return api
  }

  it('embed: what codebase indexing sends, a batch of chunks, decoded from base64', async () => {
    const chunks = ['export function add(a: number, b: number) {\n  return a + b\n}', 'export const PI = 3.14159', '# README\n\nHow to build.']
    const live = await trafficClient(gw.url, gw.ownerKey).live()
    const reply = await continueApi({ 'x-request-id': 'continue-embed' }).embed({ model: MODEL, input: chunks })
    const ended = await live.next(endOf('continue-embed'), 10_000)
    live.close()
    const exchange = await trafficClient(gw.url, gw.ownerKey).exchange(ended.type === 'exchange.ended' ? ended.exchange.id : '')
    expect(JSON.parse(exchange.request.body)).toMatchObject({ model: MODEL, input: chunks, encoding_format: 'base64' })
    expect(reply.data.map((item) => item.index)).toEqual([0, 1, 2])
    for (const item of reply.data) {
      expect(item.embedding).toHaveLength(SCRIPTED_EMBEDDING_DIMENSIONS)
      expect(dot(item.embedding, item.embedding)).toBeCloseTo(1, 5)
    }
    expect(reply.usage.prompt_tokens).toBeGreaterThan(0)
    // The same vectors the openai SDK gets asking for floats.
    const floats = await gw.client().embeddings.create({ model: MODEL, input: chunks, encoding_format: 'float' })
    expect(reply.data.map((item) => Array.from(item.embedding))).toEqual(floats.data.map((item) => item.embedding))
  })
})
