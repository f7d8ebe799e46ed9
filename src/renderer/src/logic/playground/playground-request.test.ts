import { DEFAULT_MODEL_ID } from '../../../../shared/api/chat-request'
import { describe, expect, it } from 'vitest'
import {
  buildPlaygroundRequest,
  continueConversation,
  defaultPlaygroundForm,
  EXAMPLE_TOOLS_JSON,
  formFromRequest,
  parseToolsJson,
  type PlaygroundForm,
} from './playground-request'

const form = (overrides: Partial<PlaygroundForm> = {}): PlaygroundForm => ({ ...defaultPlaygroundForm(DEFAULT_MODEL_ID), ...overrides })

const problemsOf = (f: PlaygroundForm) => {
  const built = buildPlaygroundRequest(f)
  return built.ok ? [] : built.problems
}

describe('parseToolsJson', () => {
  it('accepts blank and the example', () => {
    expect(parseToolsJson('  ')).toEqual({ ok: true, tools: [], names: [] })
    const parsed = parseToolsJson(EXAMPLE_TOOLS_JSON)
    expect(parsed.ok && parsed.names).toEqual(['get_weather'])
  })

  it('refuses text that is not JSON, or not an array', () => {
    const notJson = parseToolsJson('[{')
    expect(notJson.ok).toBe(false)
    expect(!notJson.ok && notJson.message).toMatch(/^Not JSON: /)
    expect(parseToolsJson('{}')).toEqual({ ok: false, message: expect.stringContaining('JSON array') })
  })

  it('checks the shape with the gateway contract and names the field', () => {
    const bad = parseToolsJson('[{"type":"function","function":{"name":"has space"}}]')
    expect(bad).toEqual({ ok: false, message: 'tools[0].function.name must be 1 to 64 letters, digits, underscores or dashes' })
    const dup = parseToolsJson('[{"type":"function","function":{"name":"a"}},{"type":"function","function":{"name":"a"}}]')
    expect(dup.ok).toBe(false)
    expect(parseToolsJson('[{"type":"other"}]').ok).toBe(false)
  })
})

describe('buildPlaygroundRequest', () => {
  it('builds the body and leaves the optional parts out', () => {
    const built = buildPlaygroundRequest(form())
    expect(built).toEqual({
      ok: true,
      request: {
        body: {
          model: DEFAULT_MODEL_ID,
          messages: [{ role: 'user', content: 'Hello, Mortar' }],
          stream: true,
          stream_options: { include_usage: true },
        },
        headers: {},
      },
    })
  })

  it('puts the system prompt first, and sends tools, tool_choice, parallel_tool_calls and max_tokens', () => {
    const built = buildPlaygroundRequest(
      form({
        system: 'Be brief.',
        messages: [
          { role: 'user', content: 'Hi' },
          { role: 'assistant', content: 'Hello' },
          { role: 'user', content: 'Weather?' },
        ],
        maxTokens: '64',
        stream: false,
        toolsJson: EXAMPLE_TOOLS_JSON,
        toolChoice: 'function:get_weather',
        parallelToolCalls: 'false',
      }),
    )
    expect(built.ok).toBe(true)
    if (!built.ok) return
    expect(built.request.body).toMatchObject({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'assistant', content: 'Hello' },
        { role: 'user', content: 'Weather?' },
      ],
      max_tokens: 64,
      stream: false,
      tool_choice: { type: 'function', function: { name: 'get_weather' } },
      parallel_tool_calls: false,
    })
    expect(built.request.body).not.toHaveProperty('stream_options')
  })

  it('sends the four X-Mortar headers and the Idempotency-Key', () => {
    const built = buildPlaygroundRequest(
      form({
        stream: false,
        toolsJson: EXAMPLE_TOOLS_JSON,
        toolChoice: 'function:get_weather',
        optimize: 'json-tool-blocks',
        toolSelect: 'named',
        session: 'my-agent',
        dedupe: 'in-flight',
        idempotencyKey: 'k-1',
      }),
    )
    expect(built.ok && built.request.headers).toEqual({
      'X-Mortar-Optimize': 'json-tool-blocks',
      'X-Mortar-Tool-Select': 'named',
      'X-Mortar-Session': 'my-agent',
      'X-Mortar-Dedupe': 'in-flight',
      'Idempotency-Key': 'k-1',
    })
  })

  it('refuses what the gateway would refuse, on the field it belongs to', () => {
    expect(problemsOf(form({ maxTokens: '1.5' }))).toEqual([{ field: 'maxTokens', message: 'max_tokens must be a positive whole number.' }])
    expect(problemsOf(form({ messages: [] })).map((p) => p.field)).toContain('messages')
    expect(problemsOf(form({ toolChoice: 'auto' }))).toEqual([{ field: 'toolChoice', message: 'tool_choice needs `tools`' }])
    expect(problemsOf(form({ toolsJson: EXAMPLE_TOOLS_JSON, toolChoice: 'function:nope' }))[0]?.field).toBe('toolChoice')
    expect(problemsOf(form({ optimize: 'fast' }))[0]?.field).toBe('optimize')
    expect(problemsOf(form({ toolSelect: 'named' }))[0]?.field).toBe('toolSelect')
    expect(problemsOf(form({ dedupe: 'in-flight' })).map((p) => p.field)).toEqual(['dedupe', 'idempotencyKey'])
    expect(problemsOf(form({ toolsJson: '[' }))[0]?.field).toBe('toolsJson')
  })
})

describe('formFromRequest', () => {
  it('gives back a form that builds the same request', () => {
    const original = form({
      system: 'Sys',
      messages: [
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ],
      maxTokens: '10',
      includeUsage: false,
      toolsJson: EXAMPLE_TOOLS_JSON,
      toolChoice: 'required',
      parallelToolCalls: 'true',
      optimize: 'on',
      session: 's1',
    })
    const built = buildPlaygroundRequest(original)
    if (!built.ok) throw new Error('expected a valid form')
    const again = buildPlaygroundRequest(formFromRequest(built.request.body, built.request.headers))
    expect(again).toEqual(built)
  })
})

describe('sampling fields and tool turns', () => {
  it('sends temperature, top_p, seed and stop (one per line) only when filled in, and reads them back', () => {
    const built = buildPlaygroundRequest(form({ temperature: '0.7', topP: '0.9', seed: '42', stop: 'END\n\n###' }))
    expect(built.ok && built.request.body).toMatchObject({ temperature: 0.7, top_p: 0.9, seed: 42, stop: ['END', '###'] })
    const plain = buildPlaygroundRequest(form({}))
    expect(plain.ok && Object.keys(plain.request.body)).not.toEqual(expect.arrayContaining(['temperature']))
    if (!built.ok) return
    expect(formFromRequest(built.request.body, {})).toMatchObject({ temperature: '0.7', topP: '0.9', seed: '42', stop: 'END\n###' })
  })

  it('refuses sampling values the model servers would', () => {
    expect(problemsOf(form({ temperature: '3' }))).toEqual([{ field: 'temperature', message: 'temperature must be a number from 0 to 2.' }])
    expect(problemsOf(form({ topP: 'x' }))[0]?.field).toBe('topP')
    expect(problemsOf(form({ seed: '1.5' }))[0]?.field).toBe('seed')
    expect(problemsOf(form({ stop: 'a\nb\nc\nd\ne' }))[0]?.field).toBe('stop')
  })

  it('sends an assistant turn with tool calls (content null when it has no text) and the tool result', () => {
    const calls = [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }]
    const built = buildPlaygroundRequest(
      form({
        toolsJson: EXAMPLE_TOOLS_JSON,
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: '', toolCalls: JSON.stringify(calls) },
          { role: 'tool', toolCallId: 'call_1', content: '{"temp": 21}' },
        ],
      }),
    )
    expect(built.ok).toBe(true)
    if (!built.ok) return
    expect(built.request.body.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: null, tool_calls: calls },
      { role: 'tool', tool_call_id: 'call_1', content: '{"temp": 21}' },
    ])
    const again = buildPlaygroundRequest(formFromRequest(built.request.body, {}))
    expect(again.ok && again.request.body.messages).toEqual(built.request.body.messages)
    expect(problemsOf(form({ messages: [{ role: 'assistant', content: '', toolCalls: '[{' }] }))[0]?.message).toMatch(/^Turn 1: its tool calls are not JSON/)
  })
})

describe('continueConversation', () => {
  const sent = { messages: [{ role: 'user', content: 'Hi' }], stream: true }

  it('appends a text reply as the assistant turn, then an empty user turn', () => {
    const next = continueConversation(sent, { 'X-Mortar-Session': 's' }, { content: 'Hello!', toolCalls: [] })
    expect(next.messages).toEqual([
      { role: 'user', content: 'Hi' },
      { role: 'assistant', content: 'Hello!' },
      { role: 'user', content: '' },
    ])
    expect(next.session).toBe('s')
  })

  it('appends tool calls with their ids, then a tool turn to fill in for each', () => {
    const next = continueConversation(sent, {}, {
      content: '',
      toolCalls: [
        { index: 0, id: 'call_a', type: 'function', name: 'get_weather', arguments: '{"city":"Oslo"}', pieces: 3 },
        { index: 1, id: null, type: 'function', name: 'get_time', arguments: '{}', pieces: 1 },
      ],
    })
    expect(next.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: '',
        toolCalls: JSON.stringify(
          [
            { id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Oslo"}' } },
            { id: 'call_1', type: 'function', function: { name: 'get_time', arguments: '{}' } },
          ],
          null,
          2,
        ),
      },
      { role: 'tool', toolCallId: 'call_a', content: '' },
      { role: 'tool', toolCallId: 'call_1', content: '' },
    ])
  })
})
