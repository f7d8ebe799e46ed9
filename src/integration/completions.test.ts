import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTokenizer } from '../gateway/tokens/tokenizer-registry'
import { startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { dataPayloads, nextRegisteredGeneration, readEvents, startTestGateway, type TestGateway } from './harness'

// POST /v1/completions, the legacy completions API (Continue's tab autocomplete), with the openai
// SDK's `completions.create`: against the scripted model, which repeats the prompt, and through a
// model server that has /v1/completions (forwarded) or lacks it (501).

const tokenizer = loadTokenizer('qwen2.5')
const FIM = '<|fim_prefix|>def add(a, b):\n    <|fim_suffix|>\n\nprint(add(1, 2))<|fim_middle|>'

describe('POST /v1/completions against the scripted model', () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startTestGateway()
  })
  afterAll(() => gw.close())

  it('answers JSON unless asked to stream: the prompt repeated, counted as written (no chat template)', async () => {
    const completion = await gw.client().completions.create({ model: DEFAULT_MODEL_ID, prompt: 'Hello, Mortar', max_tokens: 50 })
    expect(completion).toMatchObject({
      object: 'text_completion',
      model: DEFAULT_MODEL_ID,
      choices: [{ text: 'Hello, Mortar', index: 0, logprobs: null, finish_reason: 'stop' }],
    })
    expect(completion.id).toMatch(/^cmpl-[0-9a-f]{24}$/)
    const tokens = tokenizer.count('Hello, Mortar')
    expect(completion.usage).toEqual({ prompt_tokens: tokens, completion_tokens: tokens, total_tokens: 2 * tokens })
  })

  it('a FIM prompt is read in its special tokens, never wrapped in the template; max_tokens defaults to 16', async () => {
    const completion = await gw.client().completions.create({ model: DEFAULT_MODEL_ID, prompt: FIM })
    expect(completion.usage?.prompt_tokens).toBe(tokenizer.count(FIM))
    expect(completion.usage?.completion_tokens).toBe(16)
    expect(completion.choices[0]?.finish_reason).toBe('length')
    expect(FIM.startsWith(completion.choices[0]?.text ?? '')).toBe(true)
  })

  it('streams text_completion chunks, then the finish, the usage asked for and [DONE]', async () => {
    const stream = await gw.client().completions.create({
      model: DEFAULT_MODEL_ID,
      prompt: ['Stream me, please'],
      stream: true,
      stream_options: { include_usage: true },
      max_tokens: 100,
    })
    let text = ''
    const finishes: Array<string | null> = []
    let usage: unknown
    for await (const chunk of stream) {
      expect(chunk.object).toBe('text_completion')
      expect(chunk.id).toMatch(/^cmpl-/)
      for (const choice of chunk.choices) {
        text += choice.text
        finishes.push(choice.finish_reason)
      }
      if (chunk.usage) usage = chunk.usage
    }
    expect(text).toBe('Stream me, please')
    expect(finishes.filter((reason) => reason !== null)).toEqual(['stop'])
    const tokens = tokenizer.count('Stream me, please')
    expect(usage).toEqual({ prompt_tokens: tokens, completion_tokens: tokens, total_tokens: 2 * tokens })
  })

  it('echo puts the prompt before the reply, streamed and not', async () => {
    const whole = await gw.client().completions.create({ model: DEFAULT_MODEL_ID, prompt: 'abc', echo: true })
    expect(whole.choices[0]?.text).toBe('abcabc')
    const response = await gw.post('/v1/completions', { prompt: 'abc', echo: true, stream: true })
    const chunks = dataPayloads(await readEvents(response)) as Array<{ choices: Array<{ text: string }> }>
    expect(chunks.map((chunk) => chunk.choices[0]?.text ?? '').join('')).toBe('abcabc')
  })

  it('refuses what it cannot do in the OpenAI envelope, with the field', async () => {
    for (const [body, param] of [
      [{}, 'prompt'],
      [{ prompt: [1, 2, 3] }, 'prompt'],
      [{ prompt: ['a', 'b'] }, 'prompt'],
      [{ prompt: 'x', n: 2 }, 'n'],
      [{ prompt: 'x', max_tokens: 0 }, 'max_tokens'],
    ] as const) {
      const response = await gw.post('/v1/completions', body)
      expect(response.status).toBe(400)
      expect(response.headers.get('x-should-retry')).toBe('false')
      expect((await response.json()) as unknown).toMatchObject({ error: { type: 'invalid_request_error', param } })
    }
    const wrongMethod = await fetch(`${gw.url}/v1/completions`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(wrongMethod.status).toBe(405)
  })
})

describe('POST /v1/completions, stopped by its id', () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startTestGateway(['--scripted-tps', '20'])
  })
  afterAll(() => gw.close())

  it('names the id in X-Mortar-Request-Id; a stopped stream finishes with stop and [DONE]', async () => {
    const registered = nextRegisteredGeneration(gw)
    const response = await gw.post('/v1/completions', { prompt: 'one two three four five six seven eight nine ten '.repeat(4), stream: true, max_tokens: 200 })
    const id = await registered
    expect(response.headers.get('x-mortar-request-id')).toBe(id)
    expect(id).toMatch(/^cmpl-/)
    const stop = await fetch(`${gw.url}/v1/generations/${id}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(await stop.json()).toEqual({ stopped: true, id })
    const events = await readEvents(response)
    const chunks = dataPayloads(events) as Array<{ choices: Array<{ finish_reason: string | null }> }>
    expect(chunks.at(-1)?.choices[0]?.finish_reason).toBe('stop')
    expect(events.at(-1)).toBe('data: [DONE]')
    expect(gw.completions.at(-1)).toMatchObject({ id, outcome: 'stopped' })
  })
})

describe('POST /v1/completions through a model server', () => {
  let fake: FakeModelServer
  let gw: TestGateway
  beforeAll(async () => {
    fake = await startFakeModelServer({ completions: true })
    gw = await startTestGateway(['--upstream', fake.url])
  })
  afterAll(async () => {
    await gw.close()
    await fake.close()
  })

  it('forwards natively to its /v1/completions: prompt, suffix and fields as sent, never a chat body', async () => {
    const completion = await gw.client().completions.create({ model: DEFAULT_MODEL_ID, prompt: FIM, suffix: '\n', temperature: 0.2, stop: ['\n\n'] })
    const sent = await fake.nextRequest()
    expect(sent.path).toBe('/v1/completions')
    expect(sent.body).toEqual({ model: DEFAULT_MODEL_ID, prompt: FIM, suffix: '\n', temperature: 0.2, stop: ['\n\n'], stream: false, max_tokens: 16 })
    expect(completion).toMatchObject({ object: 'text_completion', choices: [{ text: 'Hello from the model', finish_reason: 'stop' }] })
    expect(completion.id).toMatch(/^cmpl-/)
    expect(completion.usage).toMatchObject({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15 })
  })

  it('streams its reply as text_completion chunks, usage only when asked', async () => {
    const stream = await gw.client().completions.create({ model: DEFAULT_MODEL_ID, prompt: 'x', stream: true })
    let text = ''
    let sawUsage = false
    for await (const chunk of stream) {
      text += chunk.choices.map((choice) => choice.text).join('')
      if (chunk.usage) sawUsage = true
    }
    expect(text).toBe('Hello from the model')
    expect(sawUsage).toBe(false)
    const sent = await fake.nextRequest()
    expect(sent.body).toMatchObject({ stream: true, stream_options: { include_usage: true } })
  })

  it('is a 501 in the OpenAI envelope when the server lacks /v1/completions, asked once', async () => {
    fake.behavior.completions = false
    const asked = () => fake.otherRequests.filter((r) => r.method === 'POST' && r.path === '/v1/completions').length
    for (let i = 0; i < 2; i++) {
      const response = await gw.post('/v1/completions', { prompt: 'x' })
      expect(response.status).toBe(501)
      expect(response.headers.get('x-should-retry')).toBe('false')
      expect((await response.json()) as unknown).toMatchObject({ error: { type: 'upstream_error', code: 'upstream_not_supported' } })
    }
    expect(asked()).toBe(1)
  })
})
