import type OpenAI from 'openai'
import type { ResponseInputItem, ResponseStreamEvent } from 'openai/resources/responses/responses'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { HeaderName } from '../shared/api/headers'
import { nextRegisteredGeneration, startTestGateway, streamEvents, type TestGateway } from './harness'
import { endOf, trafficClient } from './traffic-client'

// POST /v1/responses against the scripted model (which repeats the last user input, and calls
// the first tool until the conversation ends with tool results), with the real openai SDK.
const weatherTool = {
  type: 'function' as const,
  name: 'get_weather',
  description: 'Current weather for a city',
  parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
  strict: false,
}

let gw: TestGateway
let client: OpenAI
beforeAll(async () => {
  gw = await startTestGateway()
  client = gw.client()
})
afterAll(() => gw.close())

async function collect(stream: AsyncIterable<ResponseStreamEvent>): Promise<ResponseStreamEvent[]> {
  const events: ResponseStreamEvent[] = []
  for await (const event of stream) events.push(event)
  return events
}

describe('responses.create against the scripted model', () => {
  it('answers JSON with the echoed text, its usage, and the ID to stop it by in the header', async () => {
    const { data, response } = await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'Hello, Mortar', instructions: 'Be brief.' }).withResponse()
    expect(data.output_text).toBe('Hello, Mortar')
    expect(data).toMatchObject({ object: 'response', status: 'completed', model: DEFAULT_MODEL_ID, instructions: 'Be brief.', incomplete_details: null })
    expect(data.id).toMatch(/^resp_[0-9a-f]{24}$/)
    expect(response.headers.get(HeaderName.requestId)).toBe(data.id)
    expect(data.output).toHaveLength(1)
    expect(data.output[0]).toMatchObject({ type: 'message', role: 'assistant', status: 'completed' })
    const usage = data.usage
    expect(usage?.output_tokens).toBeGreaterThan(0)
    expect(usage?.input_tokens).toBeGreaterThan(0)
    expect(usage?.total_tokens).toBe((usage?.input_tokens ?? 0) + (usage?.output_tokens ?? 0))
    expect(usage?.input_tokens_details.cached_tokens).toBe(0)
    expect(usage?.output_tokens_details.reasoning_tokens).toBe(0)
  })

  it('streams the events in the API’s order, numbered, ending with response.completed', async () => {
    const events = await collect(await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'one two three', stream: true }))
    const types = events.map((event) => event.type)
    expect(types.slice(0, 4)).toEqual(['response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added'])
    expect(types.slice(-4)).toEqual(['response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed'])
    expect(events.map((event) => event.sequence_number)).toEqual([...events.keys()])
    const text = events.map((event) => (event.type === 'response.output_text.delta' ? event.delta : '')).join('')
    expect(text).toBe('one two three')
    const last = events.at(-1)
    if (last?.type !== 'response.completed') throw new Error('no response.completed')
    expect(last.response.output).toMatchObject([{ type: 'message', status: 'completed', content: [{ type: 'output_text', text: 'one two three' }] }])
    expect(last.response.usage?.output_tokens).toBeGreaterThan(0)
  })

  it('the SDK’s stream helper gives the final response', async () => {
    const stream = client.responses.stream({ model: DEFAULT_MODEL_ID, input: [{ role: 'user', content: [{ type: 'input_text', text: 'streamed' }] }] })
    const final = await stream.finalResponse()
    expect(final.output_text).toBe('streamed')
    expect(final.status).toBe('completed')
  })

  it('repeats long instructions exactly, turn after turn, in the JSON reply and the stream’s response objects', async () => {
    // Long enough that the gateway keeps its JSON text; quotes, escapes, a line separator and non-ASCII test the kept text.
    const instructions = 'You are a coding agent. Say "done" when done.\n\tKeep C:\\paths and naïve text \u2028 and 😀 as they are.\n'.repeat(30)
    const traffic = trafficClient(gw.url, gw.ownerKey)
    const live = await traffic.live()
    try {
      for (let turn = 0; turn < 2; turn++) {
        const requestId = `long-instructions-${turn}`
        const response = await client.responses.create({ model: DEFAULT_MODEL_ID, input: `turn ${turn}`, instructions }, { headers: { 'x-request-id': requestId } }).asResponse()
        const text = await response.text()
        const reply = JSON.parse(text) as { instructions: string; output: Array<{ content: Array<{ text: string }> }> }
        expect(reply.instructions).toBe(instructions)
        expect(reply.output[0]?.content[0]?.text).toBe(`turn ${turn}`)
        expect(text).toBe(JSON.stringify(reply))
        expect(Number(response.headers.get('content-length'))).toBe(Buffer.byteLength(text))
        // The capture holds the reply as sent, its remembered bytes decoded back into the same text.
        const ended = await live.next(endOf(requestId), 10_000)
        if (ended.type !== 'exchange.ended') throw new Error('unreachable')
        const captured = await traffic.exchange(ended.exchange.id)
        expect(captured.response.body).toBe(text)
      }
    } finally {
      live.close()
    }
    for (let turn = 0; turn < 2; turn++) {
      const events = await collect(await client.responses.create({ model: DEFAULT_MODEL_ID, input: `streamed ${turn}`, instructions, stream: true }))
      const echoed = events.flatMap((event) => ('response' in event ? [event.response.instructions] : []))
      expect(echoed).toEqual([instructions, instructions, instructions])
    }
  })

  for (const stream of [false, true]) {
    it(`a function tool, its call and its result (${stream ? 'streamed' : 'JSON'})`, async () => {
      const input: ResponseInputItem[] = [{ role: 'user', content: 'What is the weather in Paris?' }]
      const first = stream
        ? await client.responses.stream({ model: DEFAULT_MODEL_ID, input, tools: [weatherTool] }).finalResponse()
        : await client.responses.create({ model: DEFAULT_MODEL_ID, input, tools: [weatherTool] })
      expect(first.status).toBe('completed')
      const [call] = first.output
      if (call?.type !== 'function_call') throw new Error(`expected a function call, got ${JSON.stringify(first.output)}`)
      expect(call).toMatchObject({ name: 'get_weather', arguments: '{"city":""}', status: 'completed' })
      expect(call.call_id).toMatch(/^call_/)
      expect(call.id).toMatch(/^fc_/)

      const followUp: ResponseInputItem[] = [...input, call, { type: 'function_call_output', call_id: call.call_id, output: '18 C, clear' }]
      const second = stream
        ? await client.responses.stream({ model: DEFAULT_MODEL_ID, input: followUp, tools: [weatherTool] }).finalResponse()
        : await client.responses.create({ model: DEFAULT_MODEL_ID, input: followUp, tools: [weatherTool] })
      expect(second.output_text).toBe('What is the weather in Paris?')
    })
  }

  it('calls the tool tool_choice names, and answers in text for none', async () => {
    const named = await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'x', tools: [weatherTool], tool_choice: { type: 'function', name: 'get_weather' } })
    expect(named.output[0]?.type).toBe('function_call')
    const none = await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'just text', tools: [weatherTool], tool_choice: 'none' })
    expect(none.output_text).toBe('just text')
  })

  it('cuts the reply at max_output_tokens: incomplete, with the reason', async () => {
    const cut = await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'one two three four five six seven eight', max_output_tokens: 3 })
    expect(cut.status).toBe('incomplete')
    expect(cut.incomplete_details).toEqual({ reason: 'max_output_tokens' })
    expect(cut.usage?.output_tokens).toBe(3)
    expect(cut.output[0]).toMatchObject({ type: 'message', status: 'incomplete' })

    const events = await collect(await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'one two three four five six', max_output_tokens: 2, stream: true }))
    const last = events.at(-1)
    expect(last?.type).toBe('response.incomplete')
    expect(last?.type === 'response.incomplete' && last.response.incomplete_details).toEqual({ reason: 'max_output_tokens' })
  })

  it('answers JSON when stream is left out, in the Mortar dialect too', async () => {
    const response = await gw.post('/v1/responses', { input: 'plain' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('application/json')
    expect(((await response.json()) as { status: string }).status).toBe('completed')
  })

  it('leaves out tools only OpenAI runs, and still calls the function tools', async () => {
    const response = await client.responses.create({
      model: DEFAULT_MODEL_ID,
      input: 'search?',
      tools: [{ type: 'web_search' }, weatherTool],
    })
    expect(response.output[0]).toMatchObject({ type: 'function_call', name: 'get_weather' })
  })
})

describe('refusals, in the OpenAI envelope', () => {
  it('a bad field is a 400 naming it, not retried', async () => {
    const response = await gw.post('/v1/responses', { input: [{ type: 'function_call', call_id: 'c', name: 'f' }] })
    expect(response.status).toBe(400)
    expect(response.headers.get('x-should-retry')).toBe('false')
    expect(await response.json()).toEqual({
      error: { message: expect.stringContaining('arguments') as unknown, type: 'invalid_request_error', param: 'input[0].arguments', code: 'invalid_request' },
    })
  })

  it('previous_response_id is refused: nothing is stored', async () => {
    const error: unknown = await client.responses.create({ model: DEFAULT_MODEL_ID, input: 'x', previous_response_id: 'resp_1' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 400, param: 'previous_response_id' })
  })

  it('an unknown model is a 404 in the envelope', async () => {
    const error: unknown = await client.responses.create({ model: 'no-such-model', input: 'x' }).catch((e: unknown) => e)
    expect(error).toMatchObject({ status: 404, code: 'model_not_found' })
  })
})

describe('the session', () => {
  it('is named by prompt_cache_key when no header or user names it (Codex sends its session there)', async () => {
    const response = await gw.post('/v1/responses', { input: 'x', prompt_cache_key: 'codex-session-1' })
    expect(response.headers.get(HeaderName.session)).toBe('codex-session-1')
    const named = await gw.post('/v1/responses', { input: 'x', prompt_cache_key: 'codex-session-1' }, { [HeaderName.session]: 'mine' })
    expect(named.headers.get(HeaderName.session)).toBe('mine')
  })
})

describe('stopping a response by its ID', () => {
  let paced: TestGateway
  beforeAll(async () => {
    paced = await startTestGateway(['--scripted-tps', '50'])
  })
  afterAll(() => paced.close())

  it('ends the stream as incomplete, reason stopped, with what was generated', async () => {
    const response = await paced.post('/v1/responses', { input: 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(4), stream: true })
    const id = response.headers.get(HeaderName.requestId)
    expect(id).toMatch(/^resp_/)
    const frames: string[] = []
    for await (const frame of streamEvents(response)) {
      frames.push(frame)
      if (frames.length === 5) {
        const stop = await paced.post(`/v1/generations/${String(id)}/stop`, {})
        expect(await stop.json()).toEqual({ stopped: true, id })
      }
    }
    const last = frames.at(-1) ?? ''
    expect(last.startsWith('event: response.incomplete\n')).toBe(true)
    const data = JSON.parse(last.slice(last.indexOf('data: ') + 6)) as { response: { status: string; incomplete_details: unknown; id: string } }
    expect(data.response).toMatchObject({ id, status: 'incomplete', incomplete_details: { reason: 'stopped' } })
  })

  it('answers a stopped JSON request with what was generated, incomplete, reason stopped', async () => {
    const registered = nextRegisteredGeneration(paced)
    const pending = paced.post('/v1/responses', { input: 'a b c d e f g h i j k l m n o p q r s t u v w x y z '.repeat(4) })
    const id = await registered
    const stop = await paced.post(`/v1/generations/${id}/stop`, {})
    expect(await stop.json()).toEqual({ stopped: true, id })
    const body = (await (await pending).json()) as { id: string; status: string; incomplete_details: unknown }
    expect(body).toMatchObject({ id, status: 'incomplete', incomplete_details: { reason: 'stopped' } })
  })
})
