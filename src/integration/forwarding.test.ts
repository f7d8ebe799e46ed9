import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import OpenAI from 'openai'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defaultFakeBehavior, type FakeModelServer } from '../test-kit/fake-model-server'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { dataPayloads, readEvents, streamEvents, userMessage, type TestGateway, nextRegisteredGeneration } from './harness'
import { expectEnvelope, expectErrorPayload } from '../test-kit/expect-envelope'

// `mortar serve --upstream <fake model server>`: what the model server receives, and what the
// client gets back, for every behaviour of a forwarding deployment (docs/forwarding.md).

let fake: FakeModelServer
let gw: TestGateway
beforeAll(async () => {
  const started = await startForwardingGateway({ name: 'fake-a' }, ['--upstream-timeout', '1'])
  fake = started.fake
  gw = started.gw
  return started.close
})
afterEach(() => {
  fake.behavior = { ...defaultFakeBehavior(), name: 'fake-a' }
})

const upstreamName = () => fake.host
const lastRecord = () => gw.completions.at(-1)

describe('what the model server receives', () => {
  it('gets a long conversation as the client wrote it (spaced, escaped, keys in its order), with only the top-level fields rewritten', async () => {
    const history = 'a long history line, quoted "like this" and escaped \\ so, '.repeat(60)
    const tools = [{ type: 'function', function: { name: 'read_file', description: 'Read a file. '.repeat(200), parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]
    const messages = [
      { content: 'You are terse.', role: 'system' },
      { role: 'user', content: history },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: history + ' \u0041' },
    ]
    // Spaced and with an escape JSON.stringify would not write: what reaches the server must still be the same values.
    const text = JSON.stringify({ model: DEFAULT_MODEL_ID, messages, tools, stream: false, temperature: 0.5 }, null, 2).replace('You are terse.', 'You are \\u0074erse.')
    const response = await gw.post('/v1/chat/completions', text)
    expect(response.status, await response.clone().text()).toBe(200)
    const { body } = fake.requests.at(-1)!
    expect(body).toEqual({
      model: DEFAULT_MODEL_ID,
      messages: JSON.parse(text).messages,
      tools,
      stream: false,
      temperature: 0.5,
      max_tokens: expect.any(Number),
    })
    expect((body!.messages as Array<{ content: string }>)[0]!.content).toBe('You are terse.')
    // Not ASCII, or normalized by the gateway: serialized as before, the same values.
    const accented = [{ role: 'developer', content: 'Sois bref. ' + 'é'.repeat(3000) }, { role: 'user', content: history }]
    await gw.post('/v1/chat/completions', { messages: accented, stream: false })
    expect(fake.requests.at(-1)!.body!.messages).toEqual([{ role: 'system', content: accented[0]!.content }, accented[1]])
    // A long string in a body written again goes as its remembered bytes among the rest, twice the same.
    const long = [{ role: 'developer', content: 'Sois très bref. '.repeat(2000) }, { role: 'user', content: history }]
    for (let round = 0; round < 2; round++) {
      await gw.post('/v1/chat/completions', { messages: long, stream: false })
      expect(fake.requests.at(-1)!.body!.messages).toEqual([{ role: 'system', content: long[0]!.content }, long[1]])
    }
  })

  it("gets an agent's conversation as sent on every turn, while the gateway reuses the history it parsed before, whatever the optimizer and tool selection do", async () => {
    // Long enough that the gateway remembers the parsed history (parsed-parts.ts) and reuses it on the next turn.
    const file = (n: number) => `// file ${n}, with "quotes", a \\ and \u00e9\n` + 'const value = compute(input) // why it is so\n'.repeat(60)
    const system = 'You are a careful coding agent. '.repeat(400)
    const tools = [{ type: 'function', function: { name: 'read_file', description: 'Read a file. '.repeat(120), parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]
    const messages: object[] = [{ role: 'developer', content: system }, { role: 'user', content: 'Find the bug. '.repeat(100) }]
    const named = { tool_choice: { type: 'function', function: { name: 'read_file' } } }
    const turns: [Record<string, string>, object][] = [[{}, {}], [{ 'X-Mortar-Optimize': 'on' }, {}], [{ 'X-Mortar-Tool-Select': 'named' }, named], [{}, {}], [{}, {}]]
    for (const [turn, [headers, extra]] of turns.entries()) {
      const response = await gw.post('/v1/chat/completions', { model: DEFAULT_MODEL_ID, messages, tools, stream: false, ...extra }, headers)
      expect(response.status, await response.clone().text()).toBe(200)
      const sent = fake.requests.at(-1)!.body!
      if (Object.keys(headers).length === 0) {
        // The developer turn reaches the server as the system turn (normalized), everything else as sent.
        expect(sent.messages).toEqual([{ role: 'system', content: system }, ...messages.slice(1)])
        expect(sent.tools).toEqual(tools)
      }
      messages.push(
        { role: 'assistant', content: null, tool_calls: [{ id: `c${turn}`, type: 'function', function: { name: 'read_file', arguments: JSON.stringify({ path: `f${turn}.ts` }) } }] },
        { role: 'tool', tool_call_id: `c${turn}`, content: file(turn) },
      )
    }
    // The same conversation from Anthropic's Messages API: its history is remembered too.
    const blocks: object[] = [{ role: 'user', content: 'Find the bug. '.repeat(100) }]
    for (let turn = 0; turn < 3; turn++) {
      const response = await gw.post('/v1/messages', { model: DEFAULT_MODEL_ID, max_tokens: 64, system, messages: blocks })
      expect(response.status, await response.clone().text()).toBe(200)
      const sent = fake.requests.at(-1)!.body!.messages as Array<{ role: string; content: unknown }>
      expect(sent[0]).toEqual({ role: 'system', content: system })
      if (turn > 0) expect(JSON.stringify(sent)).toContain(JSON.stringify(file(turn - 1)).slice(1, -1))
      blocks.push(
        { role: 'assistant', content: [{ type: 'tool_use', id: `t${turn}`, name: 'read_file', input: { path: `f${turn}.ts` } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${turn}`, content: file(turn) }] },
      )
    }
  })

  it('gets the fields as sent, normalized messages, the planned max_tokens and an explicit stream', async () => {
    await gw.post('/v1/chat/completions', {
      messages: [
        { role: 'developer', content: 'Be brief.' },
        { role: 'user', content: [{ type: 'text', text: 'part one' }, { type: 'image_url', image_url: { url: 'x' } }, { type: 'text', text: 'part two' }] },
      ],
      stream: false,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['\n\n'],
      seed: 7,
      max_completion_tokens: 50,
      user: 'alice',
    })
    const { body } = fake.requests.at(-1)!
    expect(body).toMatchObject({
      model: DEFAULT_MODEL_ID,
      stream: false,
      temperature: 0.2,
      top_p: 0.9,
      stop: ['\n\n'],
      seed: 7,
      max_tokens: 50,
      user: 'alice',
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'part one\npart two' },
      ],
    })
    expect(body).not.toHaveProperty('max_completion_tokens')
    expect(body).not.toHaveProperty('stream_options')
  })

  it('gets stream: true spelled out when the client left it out, asked for usage, and the default max_tokens', async () => {
    await readEvents(await gw.post('/v1/chat/completions', userMessage('hi')))
    const { body } = fake.requests.at(-1)!
    expect(body?.stream).toBe(true)
    expect(body?.stream_options).toEqual({ include_usage: true })
    expect(body?.max_tokens).toBe(1024)
  })

  it('gets tools, tool_choice and parallel_tool_calls as sent', async () => {
    const tools = [{ type: 'function', function: { name: 'f', description: 'd', parameters: { type: 'object' }, strict: true } }]
    await gw.post('/v1/chat/completions', {
      ...userMessage('go'),
      stream: false,
      tools,
      tool_choice: { type: 'function', function: { name: 'f' } },
      parallel_tool_calls: false,
    })
    expect(fake.requests.at(-1)?.body).toMatchObject({ tools, tool_choice: { type: 'function', function: { name: 'f' } }, parallel_tool_calls: false })
  })
})

describe('what the client gets back', () => {
  it('non-streaming: the gateway id and headers, the server reply, its usage with details unchanged', async () => {
    const { data, response } = await gw.client().chat.completions.create({ ...userMessage('hi'), model: DEFAULT_MODEL_ID, stream: false } as never).withResponse()
    expect(data.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/)
    expect(response.headers.get('x-mortar-request-id')).toBe(data.id)
    expect(response.headers.get('x-mortar-upstream')).toBe(upstreamName())
    expect(response.headers.get('x-mortar-deployment')).toBe('upstream')
    expect(data.choices[0]?.message.content).toBe('Hello from the model')
    expect(data.usage).toEqual({ prompt_tokens: 11, completion_tokens: 4, total_tokens: 15, prompt_tokens_details: { cached_tokens: 8 } })
    expect(lastRecord()).toMatchObject({ id: data.id, usageSource: 'upstream', upstream: upstreamName(), outcome: 'finished' })
  })

  it('streaming: our chunks around the server content; usage only for a client that asked', async () => {
    const plain = dataPayloads(await readEvents(await gw.post('/v1/chat/completions', userMessage('hi'))))
    expect(plain.some((c) => 'usage' in c)).toBe(false)
    const texts = plain.map((c) => (c.choices as Array<{ delta?: { content?: string } }>)[0]?.delta?.content).filter(Boolean)
    expect(texts).toEqual(['Hello', ' from', ' the', ' model'])
    expect(plain[0]?.choices).toEqual([{ index: 0, delta: { role: 'assistant' }, logprobs: null, finish_reason: null }])
    expect(plain.at(-1)?.choices).toEqual([{ index: 0, logprobs: null, finish_reason: 'stop' }])

    const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream_options: { include_usage: true } })
    expect(response.headers.get('x-mortar-upstream')).toBe(upstreamName())
    const withUsage = dataPayloads(await readEvents(response))
    expect(withUsage.at(-1)).toMatchObject({
      choices: [],
      usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15, prompt_tokens_details: { cached_tokens: 8 } },
    })
    expect(withUsage.every((c) => c.id === response.headers.get('x-mortar-request-id'))).toBe(true)
  })

  it("passes the server's finish_reason through", async () => {
    fake.behavior.finishReason = 'length'
    const completion = await gw.client().chat.completions.create({ ...userMessage('hi'), stream: false } as never)
    expect(completion.choices[0]?.finish_reason).toBe('length')
  })

  it('passes streamed tool-call pieces through unchanged, and joins them for a JSON client', async () => {
    const pieces = [
      { index: 0, id: 'call_a', type: 'function' as const, function: { name: 'get_weather', arguments: '' } },
      { index: 1, id: 'call_b', type: 'function' as const, function: { name: 'get_time', arguments: '{"tz"' } },
      { index: 0, function: { arguments: '{"city":' } },
      { index: 1, function: { arguments: ':"UTC"}' } },
      { index: 0, function: { arguments: '"Paris"}' } },
    ]
    fake.behavior.toolCallPieces = pieces
    fake.behavior.finishReason = 'tool_calls'
    const tools = [
      { type: 'function', function: { name: 'get_weather' } },
      { type: 'function', function: { name: 'get_time' } },
    ]
    const chunks = dataPayloads(await readEvents(await gw.post('/v1/chat/completions', { ...userMessage('go'), tools })))
    const received = chunks
      .map((c) => (c.choices as Array<{ delta?: { tool_calls?: unknown[] } }>)[0]?.delta?.tool_calls)
      .filter((t) => t !== undefined)
      .flat()
    expect(received).toEqual(pieces)
    expect(chunks.at(-1)?.choices).toEqual([{ index: 0, logprobs: null, finish_reason: 'tool_calls' }])

    const completion = await gw.client().chat.completions.create({ ...userMessage('go'), tools, stream: false } as never)
    expect(completion.choices[0]?.message.tool_calls).toEqual([
      { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } },
      { id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '{"tz":"UTC"}' } },
    ])
    expect(completion.choices[0]?.message.content).toBeNull()
  })

  it('estimates usage when the server reports none, and says so', async () => {
    fake.behavior.usage = null
    const response = await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream_options: { include_usage: true } })
    const chunks = dataPayloads(await readEvents(response))
    const usage = chunks.at(-1)?.usage as { prompt_tokens: number; completion_tokens: number }
    expect(usage.completion_tokens).toBeGreaterThan(0)
    expect(usage.prompt_tokens).toBeGreaterThan(0)
    expect(lastRecord()?.usageSource).toBe('estimate')
  })

  it('falls back when the server rejects stream_options, and remembers it', async () => {
    fake.behavior.mode = 'reject-stream-options'
    fake.behavior.usage = null
    const before = fake.requests.length
    const chunks = dataPayloads(await readEvents(await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream_options: { include_usage: true } })))
    expect(chunks.at(-1)?.usage).toBeDefined()
    const sent = fake.requests.slice(before)
    expect(sent.map((r) => 'stream_options' in (r.body ?? {}))).toEqual([true, false])
    await readEvents(await gw.post('/v1/chat/completions', userMessage('again')))
    expect('stream_options' in (fake.requests.at(-1)?.body ?? {})).toBe(false)
  })
})

describe('failures before the stream starts', () => {
  it('a server error is 502 upstream_error, retryable', async () => {
    fake.behavior.mode = 'error-500'
    await expectEnvelope(await gw.post('/v1/chat/completions', userMessage('hi')), { status: 502, type: 'upstream_error', code: 'upstream_error', message: 'model crashed', retry: true })
    const error = await gw.client().chat.completions.create({ ...userMessage('hi'), stream: false } as never).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(OpenAI.APIError)
    expect((error as InstanceType<typeof OpenAI.APIError>).status).toBe(502)
  })

  it("a server's refusal (4xx) is 502 too, but not retryable", async () => {
    fake.behavior.mode = 'error-400'
    fake.behavior.errorMessage = 'this model does not support tools'
    await expectEnvelope(await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream: false }), {
      status: 502,
      type: 'upstream_error',
      code: 'upstream_error',
      message: 'this model does not support tools',
      retry: false,
    })
  })

  it('no response headers within the timeout is 504 upstream_timeout, and the server sees the hang-up', async () => {
    fake.behavior.mode = 'never-answer'
    const response = gw.post('/v1/chat/completions', userMessage('hi'))
    const received = await fake.requestAt(fake.requests.length)
    await expectEnvelope(await response, { status: 504, type: 'upstream_error', code: 'upstream_timeout' })
    await received.ended
    expect(received.hungUp).toBe(true)
  })
})

describe('failures mid-stream: one upstream_error event, then close without [DONE]', () => {
  const expectBrokenStream = async (detail: RegExp) => {
    const events = await readEvents(await gw.post('/v1/chat/completions', userMessage('hi')))
    expect(events).not.toContain('data: [DONE]')
    expectErrorPayload(JSON.parse(events.at(-1)!.slice('data: '.length)), { type: 'upstream_error', message: detail })
    // Never a synthetic stop.
    expect(events.some((e) => e.includes('"finish_reason":"stop"'))).toBe(false)
    expect(lastRecord()?.outcome).toBe('failed')
  }

  it('on a connection reset', async () => {
    fake.behavior.mode = 'die-mid-stream'
    await expectBrokenStream(/connection broke|before \[DONE\]/)
  })
  it('on a malformed frame, closing the server connection', async () => {
    fake.behavior.mode = 'malformed-frame'
    const before = fake.requests.length
    await expectBrokenStream(/malformed/)
    const request = fake.requests[before]!
    await request.ended
    expect(request.hungUp).toBe(true)
  })
  it('on an error event', async () => {
    fake.behavior.mode = 'error-event'
    await expectBrokenStream(/boom/)
  })
  it('on a stream that closes before any finish reason', async () => {
    fake.behavior.mode = 'replay'
    fake.behavior.replay = { body: `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: 'Hel' }, finish_reason: null }] })}\n\n`, contentType: 'text/event-stream', ending: 'close' }
    await expectBrokenStream(/before \[DONE\]/)
  })
  it('raises in the openai SDK', async () => {
    fake.behavior.mode = 'die-mid-stream'
    const stream = await gw.client().chat.completions.create({ ...userMessage('hi'), stream: true } as never)
    await expect(
      (async () => {
        for await (const _ of stream as unknown as AsyncIterable<unknown>) {
          // read on until it fails
        }
      })(),
    ).rejects.toThrow()
  })
})

describe('a server that ignores max_tokens', () => {
  it('is cut at 3 × max_tokens + 64 with length, usage estimated, its connection closed', async () => {
    fake.behavior.mode = 'ignore-max-tokens'
    const before = fake.requests.length
    const chunks = dataPayloads(
      await readEvents(await gw.post('/v1/chat/completions', { ...userMessage('hi'), max_tokens: 10, stream_options: { include_usage: true } })),
    )
    expect(chunks.at(-2)?.choices).toEqual([{ index: 0, logprobs: null, finish_reason: 'length' }])
    const usage = chunks.at(-1)?.usage as { completion_tokens: number }
    expect(usage.completion_tokens).toBe(3 * 10 + 64)
    expect(lastRecord()?.usageSource).toBe('estimate')
    const request = fake.requests[before]!
    await request.ended
    expect(request.hungUp).toBe(true)
  })

  it('non-streaming: the reply is cut to the same limit', async () => {
    fake.behavior.deltas = Array.from({ length: 200 }, () => ' word')
    const completion = await gw.client().chat.completions.create({ ...userMessage('hi'), max_tokens: 2, stream: false } as never)
    expect(completion.choices[0]?.finish_reason).toBe('length')
    expect(completion.usage?.completion_tokens).toBe(3 * 2 + 64)
    expect(completion.choices[0]?.message.content).toBe(' word'.repeat(70))
  })
})

describe('cancellation reaches the model server in every phase', () => {
  const abortAfter = async (mode: 'never-answer' | 'stall-before-first-token' | 'ignore-max-tokens', phase: 'headers' | 'body' | 'chunks') => {
    fake.behavior.mode = mode
    fake.behavior.stallMs = 60_000
    const controller = new AbortController()
    const before = fake.requests.length
    const pending = fetch(`${gw.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${gw.ownerKey}` },
      body: JSON.stringify(userMessage('hi')),
      signal: controller.signal,
    })
    const received = await fake.requestAt(before)
    if (phase === 'body') await pending
    if (phase === 'chunks') {
      const events = streamEvents(await pending)
      for (let i = 0; i < 3; i++) await events.next()
    }
    controller.abort()
    await pending.catch(() => undefined)
    await received.ended
    expect(received.hungUp).toBe(true)
    await gw.server.gateway.generations.whenIdle()
  }

  it('before the response headers', () => abortAfter('never-answer', 'headers'))
  it('before the first token', () => abortAfter('stall-before-first-token', 'body'))
  it('mid-stream', () => abortAfter('ignore-max-tokens', 'chunks'))

  it('stop by id mid-stream aborts the upstream request and ends the stream with [DONE]', async () => {
    fake.behavior.mode = 'ignore-max-tokens'
    const before = fake.requests.length
    const response = await gw.post('/v1/chat/completions', userMessage('hi'))
    const id = response.headers.get('x-mortar-request-id')!
    const events = streamEvents(response)
    await events.next()
    const received = await fake.requestAt(before)
    const stop = await fetch(`${gw.url}/v1/generations/${id}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}` } })
    expect(stop.status).toBe(200)
    const rest: string[] = []
    for await (const event of events) rest.push(event)
    expect(rest.at(-1)).toBe('data: [DONE]')
    expect(rest.some((e) => e.includes('"finish_reason":"'))).toBe(false)
    await received.ended
    expect(received.hungUp).toBe(true)
  })

  it('stop by id before the server answered aborts it, and the client gets an empty stopped reply', async () => {
    fake.behavior.mode = 'never-answer'
    const idPromise = nextRegisteredGeneration(gw)
    const before = fake.requests.length
    const pending = gw.post('/v1/chat/completions', userMessage('hi'))
    const received = await fake.requestAt(before)
    const id = await idPromise
    expect((await fetch(`${gw.url}/v1/generations/${id}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${gw.ownerKey}` } })).status).toBe(200)
    const events = await readEvents(await pending)
    expect(events.at(-1)).toBe('data: [DONE]')
    await received.ended
    expect(received.hungUp).toBe(true)
  })
})
