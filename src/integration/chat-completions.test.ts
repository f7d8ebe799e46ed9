import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadTokenizer } from '../gateway/tokens/tokenizer-registry'
import { dataPayloads, readEvents, startTestGateway, userMessage, type TestGateway } from './harness'

// The default model's own tokenizer: the scripted model streams its real tokens.
const tokenizer = loadTokenizer('qwen2.5')
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    description: 'Current weather for a city',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' }, metric: { type: 'boolean' } },
      required: ['city', 'days', 'metric'],
    },
  },
}
const searchTool = {
  type: 'function' as const,
  function: {
    name: 'search',
    parameters: { type: 'object', properties: { terms: { type: 'array' }, filter: { type: 'object' } }, required: ['terms', 'filter'] },
  },
}

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway()
})
afterAll(() => gw.close())

describe('non-streaming, with the openai SDK', () => {
  it('returns a chat.completion that repeats the last user message', async () => {
    const completion = await gw.client().chat.completions.create({
      model: DEFAULT_MODEL_ID,
      messages: [
        { role: 'system', content: 'You are terse.' },
        { role: 'user', content: 'first question' },
        { role: 'assistant', content: 'first answer' },
        { role: 'user', content: 'What does max_tokens limit?' },
      ],
      stream: false,
    })
    expect(completion.id).toMatch(/^chatcmpl-[0-9a-f]{24}$/)
    expect(completion.object).toBe('chat.completion')
    expect(completion.model).toBe(DEFAULT_MODEL_ID)
    expect(Math.abs(completion.created - Date.now() / 1000)).toBeLessThan(5)
    expect(completion.choices).toHaveLength(1)
    expect(completion.choices[0]).toEqual({
      index: 0,
      message: { role: 'assistant', content: 'What does max_tokens limit?' },
      logprobs: null,
      finish_reason: 'stop',
    })
    const replyTokens = tokenizer.count('What does max_tokens limit?')
    expect(completion.usage?.completion_tokens).toBe(replyTokens)
    expect(completion.usage?.total_tokens).toBe((completion.usage?.prompt_tokens ?? 0) + replyTokens)
  })

  it('exposes the Mortar headers and echoes X-Request-Id', async () => {
    const { data, response, request_id } = await gw
      .client()
      .chat.completions.create({ ...userMessage('hi'), model: DEFAULT_MODEL_ID, stream: false } as never, {
        headers: { 'X-Request-Id': 'my-trace-42', 'X-Mortar-Session': 'proj/alpha beta:1' },
      })
      .withResponse()
    expect(request_id).toBe('my-trace-42')
    expect(response.headers.get('x-mortar-request-id')).toBe((data as { id: string }).id)
    expect(response.headers.get('x-mortar-deployment')).toBe('scripted')
    expect(response.headers.get('x-mortar-model')).toBe(DEFAULT_MODEL_ID)
    expect(response.headers.get('x-mortar-session')).toBe('projalphabeta:1')
    // The default deployment mode is shadow: measured, not applied.
    expect(response.headers.get('x-mortar-optimizer')).toMatch(/^ruleset=2; mode=shadow; bytes=\d+; saved=0; passes=json-compact\/0; elapsed_us=\d+$/)
  })

  it('cuts the reply at max_tokens with finish_reason length', async () => {
    const text = 'one two three four five six seven eight nine ten'
    const completion = await gw.client().chat.completions.create({ ...userMessage(text), model: DEFAULT_MODEL_ID, max_tokens: 3, stream: false } as never)
    const tokens = tokenizer.encode(text)
    expect(completion.choices[0]?.finish_reason).toBe('length')
    const firstThree = [...tokenizer.decodePieces(tokens.slice(0, 3))].map((p) => p.text).join('')
    expect(firstThree).toBe('one two three')
    expect(completion.choices[0]?.message.content).toBe(firstThree)
    expect(completion.usage?.completion_tokens).toBe(3)
  })

  it('treats max_completion_tokens as max_tokens', async () => {
    const completion = await gw.client().chat.completions.create({
      ...userMessage('alpha beta gamma delta'),
      model: DEFAULT_MODEL_ID,
      max_completion_tokens: 2,
      stream: false,
    } as never)
    expect(completion.choices[0]?.finish_reason).toBe('length')
    expect(completion.usage?.completion_tokens).toBe(2)
  })
})

describe('streaming', () => {
  it('streams when `stream` is left out, in the documented order', async () => {
    const response = await gw.post('/v1/chat/completions', { ...userMessage('Stream me, please.') })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8')
    expect(response.headers.get('cache-control')).toBe('no-cache, no-transform')
    expect(response.headers.get('x-accel-buffering')).toBe('no')
    const events = await readEvents(response)
    expect(events.at(-1)).toBe('data: [DONE]')
    const chunks = dataPayloads(events)
    const id = response.headers.get('x-mortar-request-id')
    for (const chunk of chunks) {
      expect(chunk).toMatchObject({ id, object: 'chat.completion.chunk', model: DEFAULT_MODEL_ID })
    }
    // 1. role chunk, no text
    expect(chunks[0]?.choices).toEqual([{ index: 0, delta: { role: 'assistant' }, logprobs: null, finish_reason: null }])
    // 2. one chunk per token of the reply
    const content = chunks.slice(1, -1)
    expect(content).toHaveLength(tokenizer.count('Stream me, please.'))
    expect(content.map((c) => (c.choices as Array<{ delta: { content: string } }>)[0]?.delta.content).join('')).toBe('Stream me, please.')
    // 3. the finish chunk has no delta; 4. no usage chunk unless asked
    expect(chunks.at(-1)?.choices).toEqual([{ index: 0, logprobs: null, finish_reason: 'stop' }])
    expect(chunks.some((c) => 'usage' in c)).toBe(false)
  })

  it('adds the usage chunk, with empty choices, only when include_usage is set', async () => {
    const response = await gw.post('/v1/chat/completions', {
      ...userMessage('count me'),
      stream: true,
      stream_options: { include_usage: true },
    })
    const events = await readEvents(response)
    const chunks = dataPayloads(events)
    const usageChunk = chunks.at(-1)
    expect(usageChunk?.choices).toEqual([])
    const usage = usageChunk?.usage as { prompt_tokens: number; completion_tokens: number; total_tokens: number }
    expect(usage.completion_tokens).toBe(tokenizer.count('count me'))
    expect(usage.total_tokens).toBe(usage.prompt_tokens + usage.completion_tokens)
    expect((chunks.at(-2)?.choices as Array<{ finish_reason: string }>)[0]?.finish_reason).toBe('stop')
  })

  it('streams through the openai SDK, multi-byte text intact', async () => {
    const text = 'Grüße, 你好世界 🌍🚀 — done'
    const stream = await gw.client().chat.completions.create({
      ...userMessage(text),
      model: DEFAULT_MODEL_ID,
      stream: true,
      stream_options: { include_usage: true },
    } as never)
    let assembled = ''
    let finish: string | null = null
    let total = 0
    for await (const chunk of stream as unknown as AsyncIterable<{
      choices: Array<{ delta?: { content?: string }; finish_reason: string | null }>
      usage?: { total_tokens: number }
    }>) {
      assembled += chunk.choices[0]?.delta?.content ?? ''
      finish = chunk.choices[0]?.finish_reason ?? finish
      if (chunk.usage) total = chunk.usage.total_tokens
    }
    expect(assembled).toBe(text)
    expect(finish).toBe('stop')
    expect(total).toBeGreaterThan(tokenizer.count(text))
  })

  it('works with the SDK stream helper (chat.completions.stream) too', async () => {
    const runner = gw.client().chat.completions.stream({ ...userMessage('helper path'), model: DEFAULT_MODEL_ID } as never)
    const final = await runner.finalChatCompletion()
    expect(final.choices[0]?.message.content).toBe('helper path')
    expect(final.choices[0]?.finish_reason).toBe('stop')
  })
})

describe('tool calls by the scripted model', () => {
  it('calls the first tool with empty values of each required type', async () => {
    const completion = await gw.client().chat.completions.create({
      ...userMessage('weather?'),
      model: DEFAULT_MODEL_ID,
      tools: [weatherTool, searchTool],
      stream: false,
    } as never)
    const choice = completion.choices[0]
    expect(choice?.finish_reason).toBe('tool_calls')
    expect(choice?.message.content).toBeNull()
    expect(choice?.message.tool_calls).toHaveLength(1)
    const call = choice?.message.tool_calls?.[0] as { id: string; type: string; function: { name: string; arguments: string } }
    expect(call.id).toMatch(/^call_[0-9a-f]{24}$/)
    expect(call.type).toBe('function')
    expect(call.function.name).toBe('get_weather')
    expect(JSON.parse(call.function.arguments)).toEqual({ city: '', days: 0, metric: false })
  })

  it('calls the tool tool_choice names', async () => {
    const completion = await gw.client().chat.completions.create({
      ...userMessage('find'),
      model: DEFAULT_MODEL_ID,
      tools: [weatherTool, searchTool],
      tool_choice: { type: 'function', function: { name: 'search' } },
      stream: false,
    } as never)
    const calls = completion.choices[0]?.message.tool_calls as Array<{ function: { name: string; arguments: string } }>
    expect(calls.map((c) => c.function.name)).toEqual(['search'])
    expect(JSON.parse(calls[0]!.function.arguments)).toEqual({ terms: [], filter: {} })
  })

  it('calls every tool for `required`, only the first when parallel_tool_calls is false', async () => {
    const base = { ...userMessage('all'), model: DEFAULT_MODEL_ID, tools: [weatherTool, searchTool], tool_choice: 'required', stream: false }
    const all = await gw.client().chat.completions.create(base as never)
    expect((all.choices[0]?.message.tool_calls ?? []).map((c) => (c as { function: { name: string } }).function.name)).toEqual([
      'get_weather',
      'search',
    ])
    const one = await gw.client().chat.completions.create({ ...base, parallel_tool_calls: false } as never)
    expect(one.choices[0]?.message.tool_calls).toHaveLength(1)
  })

  it('answers in text when the conversation ends with tool results, and for tool_choice none', async () => {
    const history = [
      { role: 'user', content: 'What is the weather in Paris?' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }],
      },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c": 21}' },
    ]
    const after = await gw.client().chat.completions.create({ messages: history, model: DEFAULT_MODEL_ID, tools: [weatherTool], stream: false } as never)
    expect(after.choices[0]?.finish_reason).toBe('stop')
    expect(after.choices[0]?.message.content).toBe('What is the weather in Paris?')
    const none = await gw.client().chat.completions.create({
      ...userMessage('no tools please'),
      model: DEFAULT_MODEL_ID,
      tools: [weatherTool],
      tool_choice: 'none',
      stream: false,
    } as never)
    expect(none.choices[0]?.message.tool_calls).toBeUndefined()
    expect(none.choices[0]?.message.content).toBe('no tools please')
  })

  it('streams calls in pieces: id, type and name only on the first piece of each', async () => {
    const response = await gw.post('/v1/chat/completions', {
      ...userMessage('go'),
      tools: [weatherTool, searchTool],
      tool_choice: 'required',
    })
    const chunks = dataPayloads(await readEvents(response))
    type Piece = { index: number; id?: string; type?: string; function: { name?: string; arguments: string } }
    const pieces = chunks
      .slice(1, -1)
      .map((c) => (c.choices as Array<{ delta: { tool_calls: Piece[] } }>)[0]!.delta.tool_calls)
    expect(pieces.every((p) => p.length === 1)).toBe(true)
    const byCall = new Map<number, Piece[]>()
    for (const [piece] of pieces) byCall.set(piece!.index, [...(byCall.get(piece!.index) ?? []), piece!])
    expect([...byCall.keys()]).toEqual([0, 1])
    for (const [index, callPieces] of byCall) {
      const [first, ...rest] = callPieces
      expect(first).toMatchObject({ index, type: 'function', function: { arguments: '' } })
      expect(first?.id).toMatch(/^call_/)
      expect(rest.length).toBeGreaterThan(0)
      for (const piece of rest) expect(Object.keys(piece).sort()).toEqual(['function', 'index'])
      for (const piece of rest) expect(Object.keys(piece.function)).toEqual(['arguments'])
      expect(() => JSON.parse(rest.map((p) => p.function.arguments).join(''))).not.toThrow()
    }
    expect((chunks.at(-1)?.choices as Array<{ finish_reason: string }>)[0]?.finish_reason).toBe('tool_calls')
  })
})

describe('models', () => {
  it('lists the catalog with each context window', async () => {
    const models = await gw.client().models.list()
    expect(models.data.map((m) => m.id)).toContain(DEFAULT_MODEL_ID)
    const qwen = models.data.find((m) => m.id === DEFAULT_MODEL_ID) as unknown as Record<string, unknown>
    expect(qwen).toMatchObject({ object: 'model', owned_by: 'mortar', context_window: 4096 })
    expect(typeof qwen.created).toBe('number')
    const one = await gw.client().models.retrieve(DEFAULT_MODEL_ID)
    expect(one.id).toBe(DEFAULT_MODEL_ID)
  })
})
