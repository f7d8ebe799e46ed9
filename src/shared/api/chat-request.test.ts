import { describe, expect, it } from 'vitest'
import { parseChatRequest, type ChatCompletionRequest } from './chat-request'

/**
 * parseChatRequest against every request-body rule and every 400 it can give. Every rule is checked on both sides of its boundary; a refusal must
 * say which field (`param`, written as a client writes it) and name that field in its message.
 */

type Json = Record<string, unknown>

const user = (content: unknown = 'hi'): Json => ({ role: 'user', content })
const body = (extra: Json = {}): Json => ({ messages: [user()], ...extra })
const tool = (name: string): Json => ({ type: 'function', function: { name } })
const manyTools = (n: number): Json[] => Array.from({ length: n }, (_, i) => tool(`tool_${i}`))
const call = (id: string, name = 'get_weather'): Json => ({
  id,
  type: 'function',
  function: { name, arguments: '{"city":"Paris"}' },
})
const manyCalls = (n: number): Json[] => Array.from({ length: n }, (_, i) => call(`call_${i}`))
const manyMessages = (n: number): Json[] => Array.from({ length: n }, (_, i) => user(`message ${i}`))
const withTools = (extra: Json = {}): Json => body({ tools: [tool('get_weather'), tool('get_time')], ...extra })
/** A whole tool round: the assistant's call and the `tool` message answering it. */
const toolRound = (toolMessage: Json): Json => ({
  messages: [user('Weather?'), { role: 'assistant', content: null, tool_calls: [call('call_1')] }, toolMessage],
})

function accepted(json: unknown): ChatCompletionRequest {
  const result = parseChatRequest(json)
  if (!result.ok) throw new Error(`expected the body to be accepted, got: ${result.issue.message}`)
  return result.request
}

/**
 * The request minus the unknown fields a forwarding deployment may pass on as sent: what Mortar
 * itself acts on.
 */
function contractOf(request: ChatCompletionRequest): Omit<ChatCompletionRequest, 'extraFields'> {
  const { extraFields: _passedOn, ...contract } = request as ChatCompletionRequest & { extraFields?: unknown }
  return contract
}

function expectRefused(json: unknown, param: string | null): string {
  const result = parseChatRequest(json)
  expect(result.ok, 'the body should be refused').toBe(false)
  if (result.ok) return ''
  expect(result.issue.param).toBe(param)
  expect(result.issue.message.length).toBeGreaterThan(0)
  if (param !== null) expect(result.issue.message).toContain(param)
  return result.issue.message
}

describe('parseChatRequest: messages', () => {
  it.each<[string, Json, string]>([
    ['messages missing', {}, 'messages'],
    ['messages null', { messages: null }, 'messages'],
    ['messages an object', { messages: { role: 'user', content: 'hi' } }, 'messages'],
    ['messages a string', { messages: 'hi' }, 'messages'],
    ['0 messages', { messages: [] }, 'messages'],
    ['513 messages', { messages: manyMessages(513) }, 'messages'],
    ['a message that is a string', { messages: ['hi'] }, 'messages[0]'],
    ['a message that is null', { messages: [user(), null] }, 'messages[1]'],
  ])('refuses %s', (_name, json, param) => {
    expectRefused(json, param)
  })

  it.each([1, 2, 511, 512])('accepts %i messages and keeps them in order', (n) => {
    const request = accepted({ messages: manyMessages(n) })
    expect(request.messages).toHaveLength(n)
    expect(request.messages[n - 1]?.content).toBe(`message ${n - 1}`)
  })
})

describe('parseChatRequest: roles', () => {
  it.each<[string, Json]>([
    ['missing', { content: 'hi' }],
    ['a number', { role: 1, content: 'hi' }],
    ['null', { role: null, content: 'hi' }],
    ['an unknown role', { role: 'function', content: 'hi' }],
    ['a role in the wrong case', { role: 'User', content: 'hi' }],
  ])('refuses a role that is %s', (_name, message) => {
    expectRefused({ messages: [message] }, 'messages[0].role')
  })

  it.each(['system', 'user', 'assistant'])('accepts the %s role as sent', (role) => {
    expect(accepted({ messages: [{ role, content: 'hi' }] }).messages[0]?.role).toBe(role)
  })

  it('accepts the tool role', () => {
    const request = accepted(toolRound({ role: 'tool', tool_call_id: 'call_1', content: '21 C' }))
    expect(request.messages[2]).toEqual({ role: 'tool', tool_call_id: 'call_1', content: '21 C' })
  })

  it('tolerates the developer role and treats it as system', () => {
    const request = accepted({ messages: [{ role: 'developer', content: 'Be brief.' }, user()] })
    expect(request.messages[0]).toEqual({ role: 'system', content: 'Be brief.' })
  })
})

describe('parseChatRequest: content', () => {
  const nonAssistantRoles = ['system', 'developer', 'user'] as const

  it.each(nonAssistantRoles)('refuses null content on a %s message', (role) => {
    expectRefused({ messages: [{ role, content: null }] }, 'messages[0].content')
  })

  it.each(nonAssistantRoles)('refuses a %s message without content', (role) => {
    expectRefused({ messages: [{ role }] }, 'messages[0].content')
  })

  it('refuses null content on a tool message', () => {
    expectRefused(toolRound({ role: 'tool', tool_call_id: 'call_1', content: null }), 'messages[2].content')
  })

  it('refuses null content on an assistant message without tool_calls', () => {
    expectRefused({ messages: [user(), { role: 'assistant', content: null }] }, 'messages[1].content')
  })

  it('refuses an assistant message without content or tool_calls', () => {
    expectRefused({ messages: [user(), { role: 'assistant' }] }, 'messages[1].content')
  })

  it('refuses null content on an assistant message whose tool_calls is empty', () => {
    expectRefused({ messages: [user(), { role: 'assistant', content: null, tool_calls: [] }] }, 'messages[1].content')
  })

  it('refuses null content on a user message even when it carries tool_calls', () => {
    expectRefused({ messages: [{ role: 'user', content: null, tool_calls: [call('c1')] }] }, 'messages[0].content')
  })

  it('accepts null content on an assistant message with tool_calls', () => {
    const request = accepted({ messages: [user(), { role: 'assistant', content: null, tool_calls: [call('c1')] }] })
    expect(request.messages[1]?.content).toBeNull()
    expect(request.messages[1]?.tool_calls).toHaveLength(1)
  })

  it('accepts an assistant message with tool_calls that leaves content out, as null', () => {
    const request = accepted({ messages: [user(), { role: 'assistant', tool_calls: [call('c1')] }] })
    expect(request.messages[1]?.content).toBeNull()
  })

  it('keeps text content beside tool_calls on an assistant message', () => {
    const request = accepted({ messages: [user(), { role: 'assistant', content: 'Checking.', tool_calls: [call('c1')] }] })
    expect(request.messages[1]?.content).toBe('Checking.')
  })

  it.each<[string, unknown]>([
    ['a number', 42],
    ['a boolean', true],
    ['an object', { type: 'text', text: 'hi' }],
  ])('refuses content that is %s', (_name, content) => {
    expectRefused({ messages: [user(content)] }, 'messages[0].content')
  })

  it.each(['system', 'developer', 'user', 'assistant'])('accepts string content on a %s message, unchanged', (role) => {
    const text = '  spaced\nlines  '
    expect(accepted({ messages: [{ role, content: text }] }).messages[0]?.content).toBe(text)
  })

  it('accepts an empty string as content', () => {
    expect(accepted({ messages: [user('')] }).messages[0]?.content).toBe('')
  })

  it.each(['system', 'developer', 'user', 'assistant'])('accepts array content on a %s message', (role) => {
    const content = [{ type: 'text', text: 'one' }, { type: 'text', text: 'two' }]
    expect(accepted({ messages: [{ role, content }] }).messages[0]?.content).toBe('one\ntwo')
  })

  it('accepts array content on a tool message', () => {
    const request = accepted(toolRound({ role: 'tool', tool_call_id: 'call_1', content: [{ type: 'text', text: '21 C' }] }))
    expect(request.messages[2]?.content).toBe('21 C')
  })

  it.each<[string, unknown[], string]>([
    ['one text part', [{ type: 'text', text: 'alone' }], 'alone'],
    ['three text parts, joined with line breaks', [{ type: 'text', text: 'a' }, { type: 'text', text: 'b' }, { type: 'text', text: 'c' }], 'a\nb\nc'],
    [
      'an image between two text parts (dropped)',
      [{ type: 'text', text: 'look' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,AAAA' } }, { type: 'text', text: 'here' }],
      'look\nhere',
    ],
    ['only an image (dropped, leaving no text)', [{ type: 'image_url', image_url: { url: 'https://x.test/a.png' } }], ''],
    ['no parts', [], ''],
    ['a part whose text is not a string (dropped)', [{ type: 'text', text: 7 }, { type: 'text', text: 'kept' }], 'kept'],
    ['parts that are not objects (dropped)', ['bare', null, 3, { type: 'text', text: 'kept' }], 'kept'],
    ['text that itself holds line breaks', [{ type: 'text', text: 'x\ny' }, { type: 'text', text: 'z' }], 'x\ny\nz'],
  ])('joins array content with %s', (_name, content, expected) => {
    expect(accepted({ messages: [user(content)] }).messages[0]?.content).toBe(expected)
  })
})

describe('parseChatRequest: tool_calls on assistant messages', () => {
  const assistant = (extra: Json): Json => ({ messages: [user(), { role: 'assistant', content: null, ...extra }] })

  it.each([1, 127, 128])('accepts %i tool calls', (n) => {
    expect(accepted(assistant({ tool_calls: manyCalls(n) })).messages[1]?.tool_calls).toHaveLength(n)
  })

  it('refuses 129 tool calls', () => {
    expectRefused(assistant({ tool_calls: manyCalls(129) }), 'messages[1].tool_calls')
  })

  it('accepts a tool call without type, and keeps id, name and arguments as sent', () => {
    const request = accepted(assistant({ tool_calls: [{ id: 'c9', function: { name: 'f', arguments: '{"a":1}' } }] }))
    expect(request.messages[1]?.tool_calls?.[0]).toMatchObject({ id: 'c9', function: { name: 'f', arguments: '{"a":1}' } })
  })

  it.each<[string, unknown, string]>([
    ['tool_calls not an array', { id: 'c1', function: { name: 'f', arguments: '{}' } }, 'messages[1].tool_calls'],
    ['a call that is not an object', ['c1'], 'messages[1].tool_calls[0]'],
    ['a call without id', [{ type: 'function', function: { name: 'f', arguments: '{}' } }], 'messages[1].tool_calls[0].id'],
    ['a call whose id is a number', [{ id: 1, function: { name: 'f', arguments: '{}' } }], 'messages[1].tool_calls[0].id'],
    ['a call with another type', [{ id: 'c1', type: 'retrieval', function: { name: 'f', arguments: '{}' } }], 'messages[1].tool_calls[0].type'],
    ['a call without function', [{ id: 'c1', type: 'function' }], 'messages[1].tool_calls[0].function'],
    ['a call without function.name', [{ id: 'c1', function: { arguments: '{}' } }], 'messages[1].tool_calls[0].function.name'],
    ['a call without function.arguments', [{ id: 'c1', function: { name: 'f' } }], 'messages[1].tool_calls[0].function.arguments'],
    [
      'a call whose arguments are an object, not JSON text',
      [{ id: 'c1', function: { name: 'f', arguments: { city: 'Paris' } } }],
      'messages[1].tool_calls[0].function.arguments',
    ],
    ['the second call malformed', [call('c1'), { id: 'c2', function: { name: 'f' } }], 'messages[1].tool_calls[1].function.arguments'],
  ])('refuses %s', (_name, toolCalls, param) => {
    expectRefused(assistant({ tool_calls: toolCalls }), param)
  })
})

describe('parseChatRequest: tool messages', () => {
  it('refuses a tool message without tool_call_id', () => {
    expectRefused(toolRound({ role: 'tool', content: '21 C' }), 'messages[2].tool_call_id')
  })

  it('refuses a tool message whose tool_call_id is null', () => {
    expectRefused(toolRound({ role: 'tool', tool_call_id: null, content: '21 C' }), 'messages[2].tool_call_id')
  })

  it('refuses a tool message whose tool_call_id is not a string', () => {
    expectRefused(toolRound({ role: 'tool', tool_call_id: 1, content: '21 C' }), 'messages[2].tool_call_id')
  })

  it('keeps tool_call_id on the tool message', () => {
    expect(accepted(toolRound({ role: 'tool', tool_call_id: 'call_1', content: 'ok' })).messages[2]?.tool_call_id).toBe('call_1')
  })
})

describe('parseChatRequest: tools', () => {
  const name64 = 'a'.repeat(64)

  it.each([1, 127, 128])('accepts %i tools', (n) => {
    expect(accepted(body({ tools: manyTools(n) })).tools).toHaveLength(n)
  })

  it('refuses 129 tools', () => {
    expectRefused(body({ tools: manyTools(129) }), 'tools')
  })

  it.each<[string, string]>([
    ['1 character', 'f'],
    ['64 characters', name64],
    ['every allowed kind of character', 'Get_Weather-2'],
    ['only a dash', '-'],
  ])('accepts a tool name of %s', (_name, name) => {
    expect(accepted(body({ tools: [tool(name)] })).tools[0]?.function.name).toBe(name)
  })

  it.each<[string, unknown]>([
    ['65 characters', 'a'.repeat(65)],
    ['no characters', ''],
    ['a space', 'get weather'],
    ['a dot', 'get.weather'],
    ['a non-ASCII letter', 'météo'],
    ['a trailing line break', 'get_weather\n'],
    ['a number instead of a string', 42],
  ])('refuses a tool name with %s', (_name, name) => {
    expectRefused(body({ tools: [{ type: 'function', function: { name } }] }), 'tools[0].function.name')
  })

  it('refuses two tools with the same name, pointing at the second and naming it in the message', () => {
    const message = expectRefused(body({ tools: [tool('get_weather'), tool('get_time'), tool('get_weather')] }), 'tools[2].function.name')
    expect(message).toContain('get_weather')
  })

  it('tells apart names that differ only in case', () => {
    expect(accepted(body({ tools: [tool('lookup'), tool('Lookup')] })).tools).toHaveLength(2)
  })

  it.each<[string, unknown, string]>([
    ['tools not an array', tool('f'), 'tools'],
    ['a tool that is not an object', ['f'], 'tools[0]'],
    ['a tool without type', [{ function: { name: 'f' } }], 'tools[0].type'],
    ['a tool with another type', [{ type: 'retrieval', function: { name: 'f' } }], 'tools[0].type'],
    ['a tool without function', [{ type: 'function' }], 'tools[0].function'],
    ['a tool without function.name', [{ type: 'function', function: { description: 'x' } }], 'tools[0].function.name'],
    ['a description that is not a string', [{ type: 'function', function: { name: 'f', description: 1 } }], 'tools[0].function.description'],
    ['parameters that are an array', [{ type: 'function', function: { name: 'f', parameters: [] } }], 'tools[0].function.parameters'],
    ['parameters that are a string', [{ type: 'function', function: { name: 'f', parameters: '{}' } }], 'tools[0].function.parameters'],
    ['strict that is not a boolean', [{ type: 'function', function: { name: 'f', strict: 'yes' } }], 'tools[0].function.strict'],
  ])('refuses %s', (_name, tools, param) => {
    expectRefused(body({ tools }), param)
  })

  it('keeps description, parameters and strict', () => {
    const parameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }
    const request = accepted(body({ tools: [{ type: 'function', function: { name: 'f', description: 'd', parameters, strict: true } }] }))
    expect(request.tools[0]?.function).toEqual({ name: 'f', description: 'd', parameters, strict: true })
  })
})

describe('parseChatRequest: tool_choice', () => {
  const named = (name: unknown): Json => ({ type: 'function', function: { name } })

  it.each(['auto', 'none', 'required'])('accepts %s with tools', (choice) => {
    expect(accepted(withTools({ tool_choice: choice })).toolChoice).toBe(choice)
  })

  it('accepts the object form naming one of the tools', () => {
    expect(accepted(withTools({ tool_choice: named('get_time') })).toolChoice).toEqual(named('get_time'))
  })

  it.each<[string, unknown]>([
    ['an unknown string', 'any'],
    ['a known value in the wrong case', 'AUTO'],
    ['an empty string', ''],
    ['a number', 1],
    ['an array', ['auto']],
    ['an object without function', { type: 'function' }],
    ['an object without type', { function: { name: 'get_time' } }],
    ['an object with another type', { type: 'tool', function: { name: 'get_time' } }],
    ['an object whose name is not a string', named(5)],
    ['the Responses-API shape', { type: 'function', name: 'get_time' }],
  ])('refuses %s', (_name, choice) => {
    expectRefused(withTools({ tool_choice: choice }), 'tool_choice')
  })

  it('refuses the object form naming a tool that is not in tools', () => {
    const message = expectRefused(withTools({ tool_choice: named('get_stock') }), 'tool_choice.function.name')
    expect(message).toContain('get_stock')
  })

  it.each<[string, unknown]>([
    ['auto', 'auto'],
    ['none', 'none'],
    ['required', 'required'],
    ['the object form', named('get_time')],
  ])('refuses tool_choice %s without tools', (_name, choice) => {
    expectRefused(body({ tool_choice: choice }), 'tool_choice')
  })

  it('refuses tool_choice with an empty tools array', () => {
    expectRefused(body({ tools: [], tool_choice: 'auto' }), 'tool_choice')
  })

  it('leaves tool_choice out when it is absent or null', () => {
    expect(accepted(withTools()).toolChoice).toBeUndefined()
    expect(accepted(body({ tool_choice: null })).toolChoice).toBeUndefined()
  })
})

describe('parseChatRequest: parallel_tool_calls', () => {
  it.each([true, false])('accepts %s with tools', (value) => {
    expect(accepted(withTools({ parallel_tool_calls: value })).parallelToolCalls).toBe(value)
  })

  it.each([true, false])('refuses %s without tools', (value) => {
    expectRefused(body({ parallel_tool_calls: value }), 'parallel_tool_calls')
  })

  it('refuses it with an empty tools array', () => {
    expectRefused(body({ tools: [], parallel_tool_calls: true }), 'parallel_tool_calls')
  })

  it.each<[string, unknown]>([
    ['a string', 'true'],
    ['a number', 1],
  ])('refuses %s', (_name, value) => {
    expectRefused(withTools({ parallel_tool_calls: value }), 'parallel_tool_calls')
  })
})

describe('parseChatRequest: max_tokens and max_completion_tokens', () => {
  it.each([1, 64, 1024, 100_000])('accepts max_tokens %i', (n) => {
    expect(accepted(body({ max_tokens: n })).maxTokens).toBe(n)
  })

  it.each<[string, unknown]>([
    ['0', 0],
    ['-1', -1],
    ['1.5', 1.5],
    ['0.5', 0.5],
    ['the string "10"', '10'],
    ['true', true],
    ['an object', { value: 10 }],
  ])('refuses max_tokens %s', (_name, value) => {
    const message = expectRefused(body({ max_tokens: value }), 'max_tokens')
    expect(message).toMatch(/positive whole number/)
  })

  it('accepts a whole number written with an exponent or a zero fraction (1e3, 10.0)', () => {
    expect(accepted(JSON.parse('{"messages":[{"role":"user","content":"hi"}],"max_tokens":1e3}')).maxTokens).toBe(1000)
    expect(accepted(JSON.parse('{"messages":[{"role":"user","content":"hi"}],"max_tokens":10.0}')).maxTokens).toBe(10)
  })

  // A positive whole number, lowered by the gateway when the context window has less room left.
  // A very large whole number is still a positive whole number; planning lowers it.
  it('accepts a positive whole number beyond 2^53 (planning lowers it)', () => {
    const request = accepted(body({ max_tokens: 1e20 }))
    expect(request.maxTokens).toBeGreaterThan(4096)
  })

  it('reads max_completion_tokens as max_tokens', () => {
    expect(accepted(body({ max_completion_tokens: 77 })).maxTokens).toBe(77)
  })

  it.each<[string, unknown]>([
    ['0', 0],
    ['1.5', 1.5],
    ['"10"', '10'],
  ])('refuses max_completion_tokens %s', (_name, value) => {
    expectRefused(body({ max_completion_tokens: value }), 'max_completion_tokens')
  })

  it('leaves maxTokens unset when neither is sent, or both are null', () => {
    expect(accepted(body()).maxTokens).toBeUndefined()
    expect(accepted(body({ max_tokens: null, max_completion_tokens: null })).maxTokens).toBeUndefined()
  })
})

describe('parseChatRequest: stream, stream_options, model, user', () => {
  it('streams by default, unlike the OpenAI API', () => {
    expect(accepted(body()).stream).toBe(true)
    expect(accepted(body({ stream: null })).stream).toBe(true)
  })

  it.each([true, false])('keeps stream %s', (stream) => {
    expect(accepted(body({ stream })).stream).toBe(stream)
  })

  it.each<[string, unknown]>([
    ['the string "false"', 'false'],
    ['0', 0],
  ])('refuses stream %s', (_name, stream) => {
    expectRefused(body({ stream }), 'stream')
  })

  it('reads stream_options.include_usage, false by default', () => {
    expect(accepted(body()).includeUsage).toBe(false)
    expect(accepted(body({ stream_options: {} })).includeUsage).toBe(false)
    expect(accepted(body({ stream_options: { include_usage: true } })).includeUsage).toBe(true)
  })

  it('tolerates stream_options on a non-streaming request, and unknown keys inside it', () => {
    const request = accepted(body({ stream: false, stream_options: { include_usage: true, continuous_usage_stats: true } }))
    expect(request.stream).toBe(false)
  })

  it('refuses a stream_options that is not an object, or an include_usage that is not a boolean', () => {
    expectRefused(body({ stream_options: 'usage' }), 'stream_options')
    expectRefused(body({ stream_options: { include_usage: 'yes' } }), 'stream_options.include_usage')
  })

  it('defaults model to Qwen/Qwen2.5-7B-Instruct, and keeps a model as sent', () => {
    expect(accepted(body()).model).toBe('Qwen/Qwen2.5-7B-Instruct')
    expect(accepted(body({ model: 'gpt-4o' })).model).toBe('gpt-4o')
  })

  it('refuses a model or a user that is not a string', () => {
    expectRefused(body({ model: 7 }), 'model')
    expectRefused(body({ user: { id: 'u' } }), 'user')
  })

  it('keeps user', () => {
    expect(accepted(body({ user: 'alice-session' })).user).toBe('alice-session')
  })
})

describe('parseChatRequest: the body as a whole', () => {
  it.each<[string, unknown]>([
    ['null', null],
    ['an array', [{ role: 'user', content: 'hi' }]],
    ['a string', 'hi'],
    ['a number', 42],
    ['true', true],
  ])('refuses a body that is %s, with no param and a message saying it must be an object', (_name, json) => {
    expect(expectRefused(json, null)).toMatch(/object/i)
  })

  it('ignores fields it does not know, at the top level and inside messages and tools', () => {
    const plain = accepted(withTools({ tool_choice: 'auto', stream: false }))
    const extras = accepted({
      ...withTools({ tool_choice: 'auto', stream: false }),
      messages: [{ role: 'user', content: 'hi', name: 'alice', cache_control: { type: 'ephemeral' } }],
      tools: [
        { type: 'function', function: { name: 'get_weather', x_extra: 1 }, cache_control: { type: 'ephemeral' } },
        tool('get_time'),
      ],
      temperature: 0.2,
      top_p: 0.9,
      n: 3,
      seed: 1,
      stop: ['\n'],
      presence_penalty: 'not even a number',
      response_format: { type: 'json_object' },
      logit_bias: { 50256: -100 },
      reasoning_effort: 'low',
      metadata: { run: 'x' },
      store: true,
      some_future_field: [1, 2, 3],
    })
    expect(contractOf(extras)).toEqual(contractOf(plain))
  })

  it('treats null in every optional field as absent', () => {
    const plain = accepted(body())
    const nulls = accepted({
      messages: [{ role: 'user', content: 'hi', tool_calls: null, tool_call_id: null }],
      model: null,
      stream: null,
      stream_options: null,
      max_tokens: null,
      max_completion_tokens: null,
      user: null,
      tools: null,
      tool_choice: null,
      parallel_tool_calls: null,
    })
    expect(nulls).toEqual(plain)
  })

  it('treats null inside tools and stream_options as absent', () => {
    const request = accepted(
      body({
        tools: [{ type: 'function', function: { name: 'f', description: null, parameters: null, strict: null } }],
        stream_options: { include_usage: null },
      }),
    )
    expect(request.tools[0]?.function).toEqual({ name: 'f' })
    expect(request.includeUsage).toBe(false)
  })

  it('normalizes a whole tool conversation from an IDE client', () => {
    const request = accepted({
      model: 'Qwen/Qwen2.5-7B-Instruct',
      messages: [
        { role: 'developer', content: [{ type: 'text', text: 'You are an agent.' }, { type: 'text', text: 'Be brief.' }] },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call('call_1')] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      ],
      tools: [tool('get_weather')],
      max_completion_tokens: 300,
      stream_options: { include_usage: true },
      temperature: 0,
    })
    expect(request).toMatchObject({
      model: 'Qwen/Qwen2.5-7B-Instruct',
      stream: true,
      includeUsage: true,
      maxTokens: 300,
      messages: [
        { role: 'system', content: 'You are an agent.\nBe brief.' },
        { role: 'user', content: 'Weather in Paris?' },
        { role: 'assistant', content: null, tool_calls: [call('call_1')] },
        { role: 'tool', tool_call_id: 'call_1', content: '{"temp_c":21}' },
      ],
    })
  })
})
