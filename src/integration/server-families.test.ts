import { beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import type { ModelObject } from '../shared/api/chat-response'
import { defaultFakeBehavior, SERVER_FAMILY_NAMES, type FakeModelServer, type ServerFamilyName } from '../test-kit/fake-model-server'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { dataPayloads, readEvents, startTestGateway, userMessage, type TestGateway } from './harness'

// The gateway in front of every family of model server the fake can be: the same reply for the
// client whoever generated it, and the window where each server says it. (Each family's 404 for a
// path it lacks is read as a missing endpoint: upstream-forms.test.ts.)

let fake: FakeModelServer
let gw: TestGateway
beforeAll(async () => {
  const started = await startForwardingGateway()
  fake = started.fake
  gw = started.gw
  return started.close
})

const asFamily = (family: ServerFamilyName, extra: Partial<typeof fake.behavior> = {}): void => {
  fake.behavior = { ...defaultFakeBehavior(), family, reasoning: ['Think', 'ing.'], ...extra }
}

describe.each(SERVER_FAMILY_NAMES)('a %s model server', (family) => {
  it('streams the client its content and reasoning, and the usage it reported', async () => {
    asFamily(family)
    const events = await readEvents(await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream_options: { include_usage: true } }))
    expect(events.at(-1)).toBe('data: [DONE]')
    const chunks = dataPayloads(events) as Array<{ choices: Array<{ delta?: { content?: string; reasoning_content?: string } }>; usage?: unknown }>
    const text = (pick: (delta: { content?: string; reasoning_content?: string }) => string | undefined) =>
      chunks.map((chunk) => pick(chunk.choices[0]?.delta ?? {}) ?? '').join('')
    expect(text((delta) => delta.content)).toBe('Hello from the model')
    expect(text((delta) => delta.reasoning_content)).toBe('Thinking.')
    expect(chunks.at(-1)?.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 })
    expect(gw.completions.at(-1)?.usageSource).toBe('upstream')
  })

  it('answers the same message as JSON', async () => {
    asFamily(family)
    const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false })
    expect(response.status).toBe(200)
    const completion = (await response.json()) as { choices: Array<{ message: { content: string; reasoning_content?: string } }> }
    expect(completion.choices[0]?.message).toMatchObject({ content: 'Hello from the model', reasoning_content: 'Thinking.' })
  })
})

describe('the window each family reports', () => {
  const reported: Record<ServerFamilyName, string | null> = {
    plain: null,
    openai: null,
    vllm: 'GET /v1/models max_model_len',
    'llama.cpp': 'GET /props default_generation_settings.n_ctx',
    ollama: 'POST /api/show model_info["qwen2.context_length"]',
    sglang: 'GET /v1/models max_model_len',
  }
  it.each(SERVER_FAMILY_NAMES)('%s: read where that server says it', async (family) => {
    asFamily(family, { contextWindow: 24_576, model: DEFAULT_MODEL_ID })
    const gateway = await startTestGateway(['--upstream', fake.url])
    try {
      const list = (await (await fetch(`${gateway.url}/v1/models`, { headers: { Authorization: `Bearer ${gateway.ownerKey}` } })).json()) as { data: ModelObject[] }
      const source = reported[family]
      expect(list.data.find((model) => model.deployment !== null)).toMatchObject(
        source === null ? { context_window: null, context_window_source: 'unknown' } : { context_window: 24_576, context_window_source: `${fake.host} ${source}` },
      )
    } finally {
      await gateway.close()
    }
  })
})
