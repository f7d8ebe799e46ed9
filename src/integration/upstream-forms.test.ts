import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GenerationRequest } from '../gateway/backends/generation-request'
import type { GenerationEvent } from '../gateway/backends/model-backend'
import { chatCompletionsForm } from '../gateway/backends/upstream/forms/chat-completions-form'
import { ReplicaPool } from '../gateway/backends/upstream/replica-pool'
import { UpstreamBackend } from '../gateway/backends/upstream/upstream-backend'
import type { UpstreamForm } from '../gateway/backends/upstream/upstream-form'
import { GatewayError } from '../gateway/errors'
import { StopController } from '../gateway/generation/stop-signal'
import { o200kTokenizer } from '../gateway/tokens/gpt-tokenizer'
import { SERVER_FAMILY_NAMES, startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'

// A form of a path the fake server lacks (it answers 404 `no route for …`), read as chat completions.
const missingForm: UpstreamForm = { ...chatCompletionsForm, path: '/responses', mayBeMissing: true }

const request = (forms: readonly UpstreamForm[]): GenerationRequest => ({
  prompt: { kind: 'messages', messages: [{ role: 'user', content: 'Hi' }], tools: [], toolChoice: undefined, parallelToolCalls: undefined },
  stream: true,
  includeUsage: false,
  maxTokens: 16,
  user: undefined,
  extraFields: {},
  forms,
})

let fake: FakeModelServer
let backend: UpstreamBackend

/** A backend of its own (replicas remember the paths they lack) for one model server. */
function backendFor(server: FakeModelServer): UpstreamBackend {
  const pool = new ReplicaPool([{ id: server.host, baseUrl: new URL(server.url), apiKey: undefined, model: undefined, timeoutMs: 10_000, idleTimeoutMs: 10_000 }], 1_000)
  return new UpstreamBackend({ deployment: 'fake', modelId: 'm', pool, tokenizer: o200kTokenizer })
}

beforeAll(async () => {
  fake = await startFakeModelServer()
  backend = backendFor(fake)
})
afterAll(() => fake.close())

async function generate(forms: readonly UpstreamForm[], on = backend): Promise<string> {
  const started = await on.start({ request: request(forms), maxTokens: 16, affinityKey: undefined, signal: new StopController() })
  const events: GenerationEvent[] = []
  await started.run((event) => void events.push(event))
  return events.map((event) => (event.kind === 'content' ? event.text : '')).join('')
}

const posts = (path: string) => fake.otherRequests.filter((r) => r.method === 'POST' && r.path === path).length

describe('an endpoint forwarded in the first form its model server has', () => {
  it('falls back past a path the server lacks, and does not ask for it again', async () => {
    expect(await generate([missingForm, chatCompletionsForm])).toBe('Hello from the model')
    expect(posts('/v1/responses')).toBe(1)
    expect(await generate([missingForm, chatCompletionsForm])).toBe('Hello from the model')
    expect(posts('/v1/responses')).toBe(1)
    expect(fake.requests).toHaveLength(2)
  })

  it('is a 501 in its envelope when the server has none of its forms', async () => {
    const error: unknown = await generate([missingForm]).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(GatewayError)
    expect((error as GatewayError).status).toBe(501)
    expect((error as GatewayError).toEnvelope().error).toMatchObject({ code: 'upstream_not_supported', type: 'upstream_error' })
    expect((error as GatewayError).message).toContain('POST /responses')
  })

  it.each(SERVER_FAMILY_NAMES)("reads a %s server's own 404 for a path it lacks as a missing endpoint", async (family) => {
    const server = await startFakeModelServer({ family })
    try {
      expect(await generate([missingForm, chatCompletionsForm], backendFor(server))).toBe('Hello from the model')
      expect(server.otherRequests.map((r) => `${r.method} ${r.path}`)).toEqual(['POST /v1/responses'])
    } finally {
      await server.close()
    }
  })
})
