import Anthropic from '@anthropic-ai/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HeaderName } from '../shared/api/headers'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { startFakeMessagesServer, type FakeMessagesServer } from './fixtures/fake-messages-server'
import { startTestGateway, type TestGateway } from './harness'
import { trafficClient } from './traffic-client'
import { inspectCaptured } from '../renderer/src/logic/inspector/captured-exchange'
import { summarizeFrame } from '../renderer/src/logic/inspector/frame-summary'

/**
 * POST /v1/messages and /v1/messages/count_tokens with Anthropic's own SDK, unmodified: against
 * the scripted model, through a model server that has only chat completions (translation), and
 * through one with its own /v1/messages (native).
 */

const anthropic = (gw: TestGateway, key = gw.ownerKey) => new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 })

const weatherTool = {
  name: 'get_weather',
  description: 'The weather in a city',
  input_schema: { type: 'object' as const, properties: { city: { type: 'string' } }, required: ['city'] },
}

/** A conversation with a tool, a call of it and its result: the second turn of an agent loop. */
function withToolResult(callId: string, input: unknown): Anthropic.MessageParam[] {
  return [
    { role: 'user', content: 'What is the weather in Paris?' },
    { role: 'assistant', content: [{ type: 'tool_use', id: callId, name: 'get_weather', input }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: callId, content: '18 C and sunny' }] },
  ]
}

describe('POST /v1/messages against the scripted model', () => {
  let gw: TestGateway
  let client: Anthropic
  beforeAll(async () => {
    gw = await startTestGateway()
    client = anthropic(gw)
  })
  afterAll(() => gw.close())

  it('messages.create repeats the last user text, as a message with an msg_ ID, end_turn and usage', async () => {
    const { data: message, response } = await client.messages
      .create({ model: DEFAULT_MODEL_ID, max_tokens: 64, system: 'Be brief.', messages: [{ role: 'user', content: 'Hello, Mortar' }] })
      .withResponse()
    expect(message).toMatchObject({ type: 'message', role: 'assistant', model: DEFAULT_MODEL_ID, stop_reason: 'end_turn', stop_sequence: null })
    expect(message.id).toMatch(/^msg_[0-9a-f]{24}$/)
    expect(message.content).toEqual([{ type: 'text', text: 'Hello, Mortar' }])
    expect(message.usage.output_tokens).toBe(4)
    expect(response.headers.get(HeaderName.requestId)).toBe(message.id)
    expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  })

  it('count_tokens agrees with usage.input_tokens of the same request: system, turns, tools and a tool result', async () => {
    const request = { model: DEFAULT_MODEL_ID, system: [{ type: 'text' as const, text: 'You are terse.' }], tools: [weatherTool], messages: withToolResult('toolu_abc', { city: 'Paris' }) }
    const counted = await client.messages.countTokens(request)
    const message = await client.messages.create({ ...request, max_tokens: 32 })
    expect(counted.input_tokens).toBeGreaterThan(100)
    expect(message.usage.input_tokens).toBe(counted.input_tokens)
    // The stream reports the same count, at its start and its end.
    const streamed = await client.messages.stream({ ...request, max_tokens: 32 }).finalMessage()
    expect(streamed.usage.input_tokens).toBe(counted.input_tokens)
  })

  it('calls the tool (toolu_ ID, tool_use) and answers its result in text, with create and with stream', async () => {
    const first = await client.messages.create({ model: DEFAULT_MODEL_ID, max_tokens: 256, tools: [weatherTool], messages: [{ role: 'user', content: 'What is the weather in Paris?' }] })
    expect(first.stop_reason).toBe('tool_use')
    expect(first.content).toHaveLength(1)
    const call = first.content[0]
    if (call?.type !== 'tool_use') throw new Error(`expected a tool_use block, got ${JSON.stringify(first.content)}`)
    expect(call.id).toMatch(/^toolu_[0-9a-f]{24}$/)
    expect(call.name).toBe('get_weather')
    expect(call.input).toEqual({ city: '' })

    const stream = client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 256, tools: [weatherTool], messages: [{ role: 'user', content: 'What is the weather in Paris?' }] })
    const inputPieces: string[] = []
    stream.on('inputJson', (piece) => inputPieces.push(piece))
    const streamedCall = await stream.finalMessage()
    expect(streamedCall.stop_reason).toBe('tool_use')
    expect(streamedCall.content).toMatchObject([{ type: 'tool_use', name: 'get_weather', input: { city: '' } }])
    expect(inputPieces.join('')).toBe('{"city": ""}'.replace(': ', ':'))

    const answer = await client.messages.create({ model: DEFAULT_MODEL_ID, max_tokens: 256, tools: [weatherTool], messages: withToolResult(call.id, call.input) })
    expect(answer.stop_reason).toBe('end_turn')
    expect(answer.content).toEqual([{ type: 'text', text: 'What is the weather in Paris?' }])

    const texts: string[] = []
    const answerStream = client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 256, tools: [weatherTool], messages: withToolResult(call.id, call.input) })
    answerStream.on('text', (text) => texts.push(text))
    const streamedAnswer = await answerStream.finalMessage()
    expect(streamedAnswer.content).toEqual(answer.content)
    expect(texts.length).toBeGreaterThan(1)
    expect(texts.join('')).toBe('What is the weather in Paris?')
  })

  it('cuts the reply at max_tokens with stop_reason max_tokens', async () => {
    const message = await client.messages.create({ model: DEFAULT_MODEL_ID, max_tokens: 2, messages: [{ role: 'user', content: 'one two three four five' }] })
    expect(message.stop_reason).toBe('max_tokens')
    expect(message.usage.output_tokens).toBe(2)
    expect(message.content).toEqual([{ type: 'text', text: 'one two' }])
  })

  it('streams the events in Anthropic’s order, each as an `event:` line with its data', async () => {
    const response = await fetch(`${gw.url}/v1/messages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${gw.ownerKey}`, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: DEFAULT_MODEL_ID, max_tokens: 16, stream: true, messages: [{ role: 'user', content: 'Hi there' }] }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toMatch(/^text\/event-stream/)
    const frames = (await response.text()).split('\n\n').filter((frame) => frame !== '')
    const types = frames.map((frame) => {
      const [eventLine, dataLine] = frame.split('\n')
      const name = eventLine?.replace(/^event: /, '')
      expect((JSON.parse(dataLine?.replace(/^data: /, '') ?? '') as { type: string }).type).toBe(name)
      return name
    })
    expect(types).toEqual(['message_start', 'ping', 'content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop'])
  })

  it('shows in Traffic, and the inspector names each event and assembles the reply', async () => {
    const message = await client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 64, tools: [weatherTool], messages: [{ role: 'user', content: 'Traffic check' }] }).finalMessage()
    const traffic = trafficClient(gw.url, gw.ownerKey)
    const row = (await traffic.list()).data.find((exchange) => exchange.completion_id === message.id)
    expect(row).toMatchObject({ endpoint: '/v1/messages', outcome: 'finished', finish_reason: 'tool_calls', stream: true })
    const inspection = inspectCaptured(await traffic.exchange(row?.id ?? ''), gw.url)
    const summaries = inspection.client.frames.map((frame) => summarizeFrame(frame).text)
    expect(summaries[0]).toMatch(/^role assistant · usage prompt \d+ · completion 0$/)
    expect(summaries.some((text) => text.startsWith('tool [0] get_weather id toolu_'))).toBe(true)
    expect(summaries.at(-1)).toBe('event message_stop')
    expect(inspection.client.reply).toMatchObject({ id: message.id, finishReason: 'tool_use', sawDone: true, anomalies: [] })
    expect(inspection.client.reply.toolCalls).toMatchObject([{ name: 'get_weather', arguments: '{"city":""}' }])
  })

  it('answers the text of a turn with an image, and counts it without the image: the scripted model reads text only', async () => {
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' } }
    const withImage = { model: DEFAULT_MODEL_ID, messages: [{ role: 'user' as const, content: [image, { type: 'text' as const, text: 'What is this?' }] }] }
    const message = await client.messages.create({ ...withImage, max_tokens: 16 })
    expect(message.content).toEqual([{ type: 'text', text: 'What is this?' }])
    const textOnly = await client.messages.countTokens({ model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'What is this?' }] })
    expect(await client.messages.countTokens(withImage)).toEqual(textOnly)
    expect(message.usage.input_tokens).toBe(textOnly.input_tokens)
  })

  it('refuses in Anthropic’s envelope: a missing max_tokens (400), an unknown model (404), a bad key (401), on count_tokens too', async () => {
    const missing = await gw.post('/v1/messages', { model: DEFAULT_MODEL_ID, messages: [{ role: 'user', content: 'x' }] })
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({
      type: 'error',
      error: { type: 'invalid_request_error', message: 'Invalid `max_tokens`: must be a positive whole number.' },
      request_id: null,
    })
    const countWithoutKey = await fetch(`${gw.url}/v1/messages/count_tokens`, { method: 'POST', body: '{}' })
    expect(countWithoutKey.status).toBe(401)
    expect(await countWithoutKey.json()).toMatchObject({ type: 'error', error: { type: 'authentication_error' } })
    const countWithoutMessages = await gw.post('/v1/messages/count_tokens', { model: DEFAULT_MODEL_ID })
    expect(countWithoutMessages.status).toBe(400)
    expect(await countWithoutMessages.json()).toMatchObject({ type: 'error', error: { type: 'invalid_request_error', message: 'Invalid `messages`: is required: an array of messages.' } })
    const unknown = await client.messages.create({ model: 'claude-nonexistent', max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error)
    expect(unknown).toBeInstanceOf(Anthropic.NotFoundError)
    expect((unknown as InstanceType<typeof Anthropic.NotFoundError>).type).toBe('not_found_error')
    const unauthorized = await anthropic(gw, 'mk_live_not_a_key').messages.create({ model: DEFAULT_MODEL_ID, max_tokens: 8, messages: [{ role: 'user', content: 'x' }] }).catch((error: unknown) => error)
    expect(unauthorized).toBeInstanceOf(Anthropic.AuthenticationError)
    expect((unauthorized as InstanceType<typeof Anthropic.AuthenticationError>).type).toBe('authentication_error')
  })
})

describe('stop by ID on /v1/messages', () => {
  let gw: TestGateway
  beforeAll(async () => {
    gw = await startTestGateway(['--scripted-tps', '50'])
  })
  afterAll(() => gw.close())

  it('a stream stopped by the ID its header names ends as a whole message, end_turn, with what came before', async () => {
    const client = anthropic(gw)
    const long = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')
    const stream = client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 1000, messages: [{ role: 'user', content: long }] })
    const { response } = await stream.withResponse()
    const id = response.headers.get(HeaderName.requestId)
    expect(id).toMatch(/^msg_/)
    await new Promise<void>((resolve) => stream.once('text', () => resolve()))
    const stop = await gw.post(`/v1/generations/${String(id)}/stop`, {})
    expect(await stop.json()).toEqual({ stopped: true, id })
    const message = await stream.finalMessage()
    expect(message.id).toBe(id)
    expect(message.stop_reason).toBe('end_turn')
    const text = message.content[0]?.type === 'text' ? message.content[0].text : ''
    expect(text.length).toBeGreaterThan(0)
    expect(long.startsWith(text)).toBe(true)
    expect(text.length).toBeLessThan(long.length)
  })
})

describe('POST /v1/messages through a model server with chat completions only', () => {
  let fake: FakeModelServer
  let gw: TestGateway
  let client: Anthropic
  beforeAll(async () => {
    fake = await startFakeModelServer()
    gw = await startTestGateway(['--upstream', fake.url, '--context-window', '32768'])
    client = anthropic(gw)
  })
  afterAll(async () => {
    await gw.close()
    await fake.close()
  })

  it('translates the tool call, its result and the reply both ways, asking /v1/messages once', async () => {
    fake.behavior = {
      ...fake.behavior,
      toolCallPieces: [
        { index: 0, id: 'call_up1', type: 'function', function: { name: 'get_weather', arguments: '{"city":' } },
        { index: 0, function: { arguments: '"Paris"}' } },
      ],
      finishReason: 'tool_calls',
    }
    const call = await client.messages.create({ model: DEFAULT_MODEL_ID, max_tokens: 100, tools: [weatherTool], tool_choice: { type: 'any' }, messages: [{ role: 'user', content: 'Weather in Paris?' }] })
    expect(call.stop_reason).toBe('tool_use')
    expect(call.content).toEqual([{ type: 'tool_use', id: 'toolu_up1', name: 'get_weather', input: { city: 'Paris' } }])
    const sent = (await fake.nextRequest()).body
    expect(sent).toMatchObject({
      model: DEFAULT_MODEL_ID,
      stream: false,
      max_tokens: 100,
      tool_choice: 'required',
      tools: [{ type: 'function', function: { name: 'get_weather', description: weatherTool.description, parameters: weatherTool.input_schema } }],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    })

    fake.behavior = { ...fake.behavior, toolCallPieces: null, finishReason: 'stop', deltas: ['It is', ' 18 C.'] }
    const stream = client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 100, tools: [weatherTool], messages: withToolResult('toolu_up1', { city: 'Paris' }) })
    const answer = await stream.finalMessage()
    expect(answer.content).toEqual([{ type: 'text', text: 'It is 18 C.' }])
    expect(answer.stop_reason).toBe('end_turn')
    // The server's own count, in Anthropic's terms: cached prompt tokens apart from input_tokens.
    expect(answer.usage).toMatchObject({ input_tokens: 3, output_tokens: 4, cache_read_input_tokens: 8 })
    const second = (await fake.nextRequest()).body
    expect(second?.messages).toEqual([
      { role: 'user', content: 'What is the weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_up1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_up1', content: '18 C and sunny' },
    ])
    expect(second?.stream).toBe(true)
    // The replica's missing /v1/messages was learned once, not asked again.
    expect(fake.otherRequests.filter((request) => request.method === 'POST' && request.path === '/v1/messages')).toHaveLength(1)
  })

  it('ends a stream the model server broke off with one `event: error`, which the SDK raises', async () => {
    fake.behavior = { ...fake.behavior, mode: 'error-event', toolCallPieces: null, deltas: ['Hello', ' there'] }
    const response = await gw.post('/v1/messages', { model: DEFAULT_MODEL_ID, max_tokens: 10, stream: true, messages: [{ role: 'user', content: 'x' }] })
    const frames = (await response.text()).split('\n\n').filter((frame) => frame !== '')
    const last = frames.at(-1) ?? ''
    expect(last.startsWith('event: error\ndata: ')).toBe(true)
    expect(JSON.parse(last.slice('event: error\ndata: '.length))).toMatchObject({ type: 'error', error: { type: 'api_error' } })
    expect(frames.some((frame) => frame.startsWith('event: message_stop'))).toBe(false)

    const failed = await client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 10, messages: [{ role: 'user', content: 'x' }] }).finalMessage().catch((error: unknown) => error)
    expect(failed).toBeInstanceOf(Anthropic.APIError)
    expect((failed as InstanceType<typeof Anthropic.APIError>).type).toBe('api_error')
    fake.behavior = { ...fake.behavior, mode: 'normal' }
  })

  it('refuses an image it cannot carry to chat, naming the block', async () => {
    const refused = await client.messages
      .create({
        model: DEFAULT_MODEL_ID,
        max_tokens: 10,
        messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }] }],
      })
      .catch((error: unknown) => error)
    expect(refused).toBeInstanceOf(Anthropic.BadRequestError)
    expect((refused as Error).message).toContain('messages[0].content[1]')
  })
})

describe('POST /v1/messages through a model server with its own /v1/messages', () => {
  let fake: FakeMessagesServer
  let gw: TestGateway
  let client: Anthropic
  beforeAll(async () => {
    fake = await startFakeMessagesServer()
    gw = await startTestGateway(['--upstream', fake.url, '--context-window', '32768'])
    client = anthropic(gw)
  })
  afterAll(async () => {
    await gw.close()
    await fake.close()
  })

  it('forwards the client’s body and passes the server’s tool call, answer and usage back, with create and with stream', async () => {
    const call = await client.messages.create({
      model: DEFAULT_MODEL_ID,
      max_tokens: 100,
      tools: [weatherTool],
      messages: [{ role: 'user', content: 'Weather in Paris?' }],
    })
    expect(call.content).toEqual([{ type: 'tool_use', id: 'toolu_native1', name: 'get_weather', input: { city: 'Paris' } }])
    expect(call.stop_reason).toBe('tool_use')
    expect(call.usage).toMatchObject({ input_tokens: 40, output_tokens: 6, cache_read_input_tokens: 2 })
    expect(fake.requests[0]?.body).toEqual({ model: DEFAULT_MODEL_ID, max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather in Paris?' }], stream: false })

    const stream = client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 100, tools: [weatherTool], messages: withToolResult('toolu_native1', { city: 'Paris' }) })
    const answer = await stream.finalMessage()
    expect(answer.content).toEqual([{ type: 'text', text: 'native: What is the weather in Paris?' }])
    expect(answer.stop_reason).toBe('end_turn')
    expect(answer.usage).toMatchObject({ input_tokens: 40, output_tokens: 6 })
    expect(fake.requests[1]?.body.stream).toBe(true)

    const streamedCall = await client.messages.stream({ model: DEFAULT_MODEL_ID, max_tokens: 100, tools: [weatherTool], messages: [{ role: 'user', content: 'Weather?' }] }).finalMessage()
    expect(streamedCall.content).toEqual(call.content)
  })

  it('sends a long conversation as the client wrote it, turn after turn, with only model, max_tokens and stream rewritten', async () => {
    // ASCII: a body with other characters is serialized again (its text offsets are not byte offsets).
    const result = (n: number) => `// file ${n}, "quoted" and \\ escaped,\n` + 'const value = compute(input)\n'.repeat(120)
    const messages: object[] = [{ role: 'user', content: 'Find the bug. '.repeat(200) }]
    for (let turn = 0; turn < 3; turn++) {
      const sent = { model: DEFAULT_MODEL_ID, system: [{ type: 'text', text: 'You are careful. '.repeat(300) }], messages, tools: [weatherTool], max_tokens: 50, metadata: { user_id: 'u1' } }
      // Spaced, and with an escape JSON.stringify would not write: the server must still get these values.
      const text = JSON.stringify(sent, null, 1).replace('You are careful.', 'You are c\\u0061reful.')
      const response = await gw.post('/v1/messages', text, { 'anthropic-version': '2023-06-01' })
      expect(response.status, await response.clone().text()).toBe(200)
      expect(fake.requests.at(-1)?.body).toEqual({ ...JSON.parse(text), model: DEFAULT_MODEL_ID, stream: false })
      // The conversation went as the client's bytes, its own escape included.
      expect(fake.requests.at(-1)?.text).toContain('You are c\\u0061reful.')
      messages.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${turn}`, name: 'get_weather', input: { city: 'Paris' } }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${turn}`, content: result(turn) }] })
    }
  })

  it('carries an image, which only a server with /v1/messages can', async () => {
    const image = { type: 'image' as const, source: { type: 'base64' as const, media_type: 'image/png' as const, data: 'iVBORw0KGgo=' } }
    const message = await client.messages.create({ model: DEFAULT_MODEL_ID, max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, image] }] })
    expect(message.content).toEqual([{ type: 'text', text: 'native: What is this?' }])
    expect(fake.requests.at(-1)?.body.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'What is this?' }, image] }])
  })
})
