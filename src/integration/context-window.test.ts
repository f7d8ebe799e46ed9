import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ModelObject } from '../shared/api/chat-response'
import { loadTokenizer } from '../gateway/tokens/tokenizer-registry'
import { defaultFakeBehavior, startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { startTestGateway, userMessage, type TestGateway } from './harness'
import { expectEnvelope } from '../test-kit/expect-envelope'

// Where an upstream model's context window comes from: config.json, --context-window, or the model
// server's own answer on its native endpoint (shapes as vLLM, SGLang, llama.cpp, LM Studio and
// Ollama document them) — and, when nothing answers, no check at all.

const qwen = loadTokenizer('qwen2.5')
const MODEL = DEFAULT_MODEL_ID

let fake: FakeModelServer
beforeAll(async () => {
  fake = await startFakeModelServer({ name: 'window' })
})
afterAll(() => fake.close())

/** Start `mortar serve --upstream <fake>` with the fake answering these informational endpoints. */
async function gatewayWith(info: Record<string, unknown>, args: string[] = [], options: { home?: string } = {}): Promise<TestGateway> {
  fake.behavior = { ...defaultFakeBehavior(), name: 'window', info }
  return startTestGateway(['--upstream', fake.url, ...args], options)
}

async function modelEntry(gw: TestGateway, id = MODEL): Promise<ModelObject> {
  const response = await fetch(`${gw.url}/v1/models`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })
  const list = (await response.json()) as { data: ModelObject[] }
  const entry = list.data.find((model) => model.id === id)
  if (entry === undefined) throw new Error(`no ${id} in /v1/models`)
  return entry
}

/** A user message of at least this many tokens (Qwen2.5's count). */
function promptOf(tokens: number): string {
  const text = 'The gateway forwards this agent system prompt unchanged. '.repeat(Math.ceil(tokens / 9))
  expect(qwen.count(text)).toBeGreaterThanOrEqual(tokens)
  return text
}

describe('discovering the window from the model server', () => {
  const families: Array<{ server: string; info: Record<string, unknown>; args?: string[]; tokens: number; source: string }> = [
    {
      server: 'vLLM / SGLang',
      info: { 'GET /v1/models': { object: 'list', data: [{ id: MODEL, object: 'model', owned_by: 'vllm', root: MODEL, max_model_len: 32768 }] } },
      tokens: 32768,
      source: 'GET /v1/models max_model_len',
    },
    {
      server: 'llama.cpp',
      info: {
        'GET /v1/models': { object: 'list', data: [{ id: 'qwen2.5-7b-instruct-q4_k_m.gguf', object: 'model', owned_by: 'llamacpp', meta: { n_ctx_train: 32768 } }] },
        'GET /props': { default_generation_settings: { n_ctx: 8192, temperature: 0.8 }, total_slots: 1, model_path: 'qwen.gguf' },
      },
      tokens: 8192,
      source: 'GET /props default_generation_settings.n_ctx',
    },
    {
      server: 'LM Studio',
      info: {
        'GET /v1/models': { object: 'list', data: [{ id: 'qwen2.5-7b-instruct', object: 'model', owned_by: 'organization_owner' }] },
        'GET /api/v0/models': {
          object: 'list',
          data: [
            { id: 'other-model', object: 'model', type: 'llm', state: 'not-loaded', max_context_length: 4096 },
            { id: 'qwen2.5-7b-instruct', object: 'model', type: 'llm', state: 'loaded', max_context_length: 32768, loaded_context_length: 16384 },
          ],
        },
      },
      args: ['--upstream-model', 'qwen2.5-7b-instruct'],
      tokens: 16384,
      source: 'GET /api/v0/models loaded_context_length',
    },
    {
      server: 'Ollama, model loaded',
      info: {
        'GET /api/ps': { models: [{ name: 'qwen2.5:7b', model: 'qwen2.5:7b', size: 4_683_087_332, context_length: 8192 }] },
        'POST /api/show': { parameters: 'stop "<|im_end|>"', model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 } },
      },
      args: ['--upstream-model', 'qwen2.5:7b'],
      tokens: 8192,
      source: 'GET /api/ps context_length',
    },
    {
      server: 'Ollama, num_ctx in the Modelfile',
      info: {
        'GET /api/ps': { models: [] },
        'POST /api/show': { parameters: 'stop "<|im_end|>"\nnum_ctx 12288', model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 } },
      },
      args: ['--upstream-model', 'qwen2.5:7b'],
      tokens: 12288,
      source: 'POST /api/show parameters num_ctx',
    },
    {
      server: "Ollama, the model's own length",
      info: { 'POST /api/show': { parameters: 'stop "<|im_end|>"', model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': 32768 } } },
      args: ['--upstream-model', 'qwen2.5'],
      tokens: 32768,
      source: 'POST /api/show model_info["qwen2.context_length"]',
    },
  ]

  for (const family of families) {
    it(`reads ${family.server}'s answer, and says so in /v1/models and at start-up`, async () => {
      const gw = await gatewayWith(family.info, family.args)
      try {
        const entry = await modelEntry(gw)
        const source = `127.0.0.1:${fake.port} ${family.source}`
        expect(entry).toMatchObject({ context_window: family.tokens, max_model_len: family.tokens, context_window_source: source, default_max_tokens: 1024 })
        expect(gw.output).toContain(`                   context window: ${family.tokens} tokens (from ${source})`)
      } finally {
        await gw.close()
      }
    })
  }

  it("asks Ollama's /api/show for the model the server knows", async () => {
    const gw = await gatewayWith({ 'POST /api/show': { model_info: { 'general.architecture': 'llama', 'llama.context_length': 131072 } } }, ['--upstream-model', 'llama3.2:3b'])
    try {
      expect((await modelEntry(gw)).context_window).toBe(131072)
      expect(fake.otherRequests.filter((r) => r.path === '/api/show').at(-1)?.body).toMatchObject({ model: 'llama3.2:3b' })
    } finally {
      await gw.close()
    }
  })

  it('lets a 12k-token prompt reach a server whose /v1/models says max_model_len 32768', async () => {
    const gw = await gatewayWith({ 'GET /v1/models': { object: 'list', data: [{ id: MODEL, object: 'model', max_model_len: 32768 }] } })
    try {
      const prompt = promptOf(12_000)
      const response = await gw.post('/v1/chat/completions', { ...userMessage(prompt), stream: false })
      expect(response.status).toBe(200)
      await response.text()
      const forwarded = fake.requests.at(-1)?.body as { messages: Array<{ content: string }>; max_tokens: number }
      expect(forwarded.messages[0]?.content).toBe(prompt)
      expect(forwarded.max_tokens).toBe(1024)
    } finally {
      await gw.close()
    }
  })

  it('refuses the same prompt with context_length_exceeded when the server says its window is smaller', async () => {
    const gw = await gatewayWith({ 'GET /v1/models': { object: 'list', data: [{ id: MODEL, object: 'model', max_model_len: 8192 }] } })
    try {
      const before = fake.requests.length
      const response = await gw.post('/v1/chat/completions', { ...userMessage(promptOf(12_000)), stream: false })
      await expectEnvelope(response, { status: 400, code: 'context_length_exceeded', message: '8192 tokens' })
      expect(fake.requests.length).toBe(before)
    } finally {
      await gw.close()
    }
  })

  it('takes the smallest window of the replicas, since a request may reach any of them', async () => {
    const other = await startFakeModelServer({ name: 'small', info: { 'GET /props': { default_generation_settings: { n_ctx: 4096 } } } })
    fake.behavior = { ...defaultFakeBehavior(), info: { 'GET /v1/models': { data: [{ id: MODEL, max_model_len: 32768 }] } } }
    const gw = await startTestGateway(['--upstream', fake.url, '--upstream', other.url])
    try {
      expect(await modelEntry(gw)).toMatchObject({ context_window: 4096, context_window_source: `127.0.0.1:${other.port} GET /props default_generation_settings.n_ctx` })
    } finally {
      await gw.close()
      await other.close()
    }
  })
})

describe('when nothing says the window', () => {
  it('checks nothing, lets the server decide, and says so', async () => {
    const gw = await gatewayWith({})
    try {
      const entry = await modelEntry(gw)
      expect(entry).toMatchObject({ context_window: null, context_window_source: 'unknown' })
      expect(entry).not.toHaveProperty('max_model_len')
      expect(gw.output.join('\n')).toContain('context window: unknown (the model server did not say); Mortar checks no prompt length, the server decides')
      const response = await gw.post('/v1/chat/completions', { ...userMessage(promptOf(12_000)), stream: false })
      expect(response.status).toBe(200)
      await response.text()
      expect(fake.requests.at(-1)?.body?.max_tokens).toBe(1024)
    } finally {
      await gw.close()
    }
  })

  it('does not hold start-up for a server that accepts connections and never answers', async () => {
    const silent = await startFakeModelServer({ mode: 'silent' })
    const started = performance.now()
    const gw = await startTestGateway(['--upstream', silent.url])
    try {
      expect(performance.now() - started).toBeLessThan(4_000)
      expect((await modelEntry(gw)).context_window).toBeNull()
      expect(silent.otherRequests.length).toBeGreaterThan(0)
    } finally {
      await gw.close()
      await silent.close()
    }
  })
})

describe('configured windows', () => {
  const vllm32k = { 'GET /v1/models': { object: 'list', data: [{ id: MODEL, object: 'model', max_model_len: 32768 }] } }

  it('--context-window sets the --upstream model\'s window; nothing is asked', async () => {
    const gw = await gatewayWith(vllm32k, ['--context-window', '16384'])
    try {
      expect(await modelEntry(gw)).toMatchObject({ context_window: 16384, max_model_len: 16384, context_window_source: 'mortar serve --context-window' })
    } finally {
      await gw.close()
    }
  })

  it('config.json contextWindow wins over the flag and the server', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-window-'))
    writeFileSync(join(home, 'config.json'), JSON.stringify({ version: 1, models: [{ id: MODEL, contextWindow: 6000, deployment: { kind: 'scripted' } }] }))
    const gw = await gatewayWith(vllm32k, ['--context-window', '16384'], { home })
    try {
      expect(await modelEntry(gw)).toMatchObject({ context_window: 6000, context_window_source: 'config.json', deployment: 'upstream' })
    } finally {
      await gw.close()
    }
  })

  it('asks again when config.json changes', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-window-'))
    const config = (name: string) =>
      writeFileSync(join(home, 'config.json'), JSON.stringify({ version: 1, models: [{ id: 'local/model', deployment: { kind: 'upstream', name, replicas: [{ url: fake.url }] } }] }))
    config('first')
    fake.behavior = { ...defaultFakeBehavior(), info: { 'GET /v1/models': { data: [{ id: 'local/model', max_model_len: 16384 }] } } }
    const gw = await startTestGateway([], { home })
    try {
      expect((await modelEntry(gw, 'local/model')).context_window).toBe(16384)
      fake.behavior.info = { 'GET /v1/models': { data: [{ id: 'local/model', max_model_len: 65536 }] } }
      config('second')
      // A request reads the changed file; the catalog built from it asks the server again.
      for (let i = 0; i < 50 && (await modelEntry(gw, 'local/model')).deployment !== 'second'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      await gw.server.catalog.discovered()
      expect(await modelEntry(gw, 'local/model')).toMatchObject({ deployment: 'second', context_window: 65536 })
    } finally {
      await gw.close()
    }
  })

  it('keeps the scripted default model at the spec\'s 4,096', async () => {
    const gw = await startTestGateway()
    try {
      expect(await modelEntry(gw)).toMatchObject({ context_window: 4096, max_model_len: 4096, context_window_source: 'default', deployment: 'scripted' })
    } finally {
      await gw.close()
    }
  })
})

describe('the default max_tokens', () => {
  const sentMaxTokens = async (gw: TestGateway, stream: boolean) => {
    const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream })
    expect(response.status).toBe(200)
    await response.text()
    return fake.requests.at(-1)?.body
  }

  it('is 1,024, set by --default-max-tokens, and none with `none` (sent to the server, shown at start-up and in /v1/models)', async () => {
    for (const [args, expected] of [[[], 1024], [['--default-max-tokens', '300'], 300], [['--default-max-tokens', 'none'], null]] as const) {
      const gw = await gatewayWith({}, [...args])
      try {
        expect((await modelEntry(gw)).default_max_tokens).toBe(expected)
        expect(gw.output).toContain(
          expected === null ? '                   max_tokens: none sent when the client sends none' : `                   max_tokens: ${expected} when the client sends none`,
        )
        for (const stream of [true, false]) {
          const body = await sentMaxTokens(gw, stream)
          if (expected === null) expect(body).not.toHaveProperty('max_tokens')
          else expect(body?.max_tokens).toBe(expected)
        }
        // The client's own value always goes.
        await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false, max_tokens: 77 }).then((r) => r.text())
        expect(fake.requests.at(-1)?.body?.max_tokens).toBe(77)
      } finally {
        await gw.close()
      }
    }
  })

  it('is per model in config.json, where null sends none and wins over the flag', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mortar-max-tokens-'))
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        version: 1,
        models: [
          { id: 'reasoner', defaultMaxTokens: null, deployment: { kind: 'upstream', replicas: [{ url: fake.url }] } },
          { id: 'short', defaultMaxTokens: 64, deployment: { kind: 'upstream', replicas: [{ url: fake.url }] } },
          { id: 'plain', deployment: { kind: 'upstream', replicas: [{ url: fake.url }] } },
        ],
      }),
    )
    fake.behavior = { ...defaultFakeBehavior(), info: {} }
    const gw = await startTestGateway(['--default-max-tokens', '500'], { home })
    try {
      for (const [model, expected] of [['reasoner', undefined], ['short', 64], ['plain', 500]] as const) {
        expect((await modelEntry(gw, model)).default_max_tokens).toBe(expected ?? null)
        await gw.post('/v1/chat/completions', { model, ...userMessage('hi'), stream: false }).then((r) => r.text())
        expect(fake.requests.at(-1)?.body?.max_tokens).toBe(expected)
      }
    } finally {
      await gw.close()
    }
  })

  it('refuses a bad flag value', async () => {
    await expect(startTestGateway(['--default-max-tokens', 'lots'])).rejects.toThrow(/--default-max-tokens takes a whole number from 1 to 10000000, or none/)
    await expect(startTestGateway(['--upstream', fake.url, '--context-window', '12'])).rejects.toThrow(/--context-window takes a whole number from 256/)
    await expect(startTestGateway(['--context-window', '8192'])).rejects.toThrow(/go with --upstream URL/)
  })
})
