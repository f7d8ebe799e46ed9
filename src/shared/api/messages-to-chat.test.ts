import { describe, expect, it } from 'vitest'
import { deepFreeze, frozenThroughout } from './element-results'
import { parseMessagesRequest, type MessagesRequest } from './messages-request'
import { messagesToChat } from './messages-to-chat'

function valid(body: unknown): MessagesRequest {
  const parsed = parseMessagesRequest(body)
  if (!parsed.ok) throw new Error(parsed.issue.message)
  return parsed.request
}

const weather = { name: 'get_weather', description: 'Weather by city', input_schema: { type: 'object', properties: { city: { type: 'string' } } } }

describe('messagesToChat', () => {
  it('puts the system prompt first and keeps the turns in order', () => {
    const { request, untranslatable } = messagesToChat(
      valid({
        model: 'm',
        max_tokens: 100,
        system: [{ type: 'text', text: 'Be brief.' }, { type: 'text', text: 'Be kind.' }],
        messages: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: [{ type: 'text', text: 'two' }] },
          { role: 'user', content: [{ type: 'text', text: 'three' }, { type: 'text', text: 'four' }] },
        ],
      }),
    )
    expect(untranslatable).toBeUndefined()
    expect(request.messages).toEqual([
      { role: 'system', content: 'Be brief.\nBe kind.' },
      { role: 'user', content: 'one' },
      { role: 'assistant', content: 'two' },
      { role: 'user', content: 'three\nfour' },
    ])
    expect(request.maxTokens).toBe(100)
    expect(request.stream).toBe(false)
  })

  it('turns tool_use into tool calls and tool_result into tool messages, before the turn’s text', () => {
    const { request } = messagesToChat(
      valid({
        model: 'm',
        max_tokens: 100,
        tools: [weather],
        tool_choice: { type: 'any', disable_parallel_tool_use: true },
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          {
            role: 'user',
            content: [
              { type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: '18 C' }] },
              { type: 'text', text: 'And tomorrow?' },
            ],
          },
        ],
      }),
    )
    expect(request.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      { role: 'assistant', content: 'Checking.', tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: '18 C' },
      { role: 'user', content: 'And tomorrow?' },
    ])
    expect(request.tools).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: weather.input_schema } }])
    expect(request.toolChoice).toBe('required')
    expect(request.parallelToolCalls).toBe(false)
  })

  it('adds no user message for a turn of tool results alone, and gives a call without text null content', () => {
    const { request } = messagesToChat(
      valid({
        model: 'm',
        max_tokens: 10,
        tools: [weather],
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'done', is_error: true }] },
        ],
      }),
    )
    expect(request.messages.slice(1)).toEqual([
      { role: 'assistant', content: null, tool_calls: [{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'toolu_1', content: 'done' },
    ])
  })

  it('maps tool_choice tool and none, and passes sampling fields, stop_sequences and metadata.user_id on', () => {
    const named = messagesToChat(
      valid({ model: 'm', max_tokens: 1, tools: [weather], tool_choice: { type: 'tool', name: 'get_weather' }, messages: [{ role: 'user', content: 'x' }] }),
    ).request
    expect(named.toolChoice).toEqual({ type: 'function', function: { name: 'get_weather' } })
    expect(named.parallelToolCalls).toBeUndefined()
    const none = messagesToChat(
      valid({
        model: 'm',
        max_tokens: 1,
        tools: [weather],
        tool_choice: { type: 'none' },
        stop_sequences: ['END'],
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        metadata: { user_id: 'u-1' },
        stream: true,
        messages: [{ role: 'user', content: 'x' }],
      }),
    ).request
    expect(none.toolChoice).toBe('none')
    expect(none.extraFields).toEqual({ stop: ['END'], temperature: 0.5, top_p: 0.9, top_k: 40 })
    expect(none.user).toBe('u-1')
    expect(none.stream).toBe(true)
  })

  it('drops thinking blocks and names the first image it cannot carry', () => {
    const { request, untranslatable } = messagesToChat(
      valid({
        model: 'm',
        max_tokens: 1,
        messages: [
          { role: 'user', content: 'x' },
          { role: 'assistant', content: [{ type: 'thinking', thinking: 'hmm', signature: 's' }, { type: 'text', text: 'y' }] },
          { role: 'user', content: [{ type: 'text', text: 'look' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
        ],
      }),
    )
    expect(request.messages).toEqual([
      { role: 'user', content: 'x' },
      { role: 'assistant', content: 'y' },
      { role: 'user', content: 'look' },
    ])
    expect(untranslatable).toEqual({ param: 'messages[2].content[1]', what: 'image block' })
  })

  it('translates a remembered message once: the same chat messages each turn, a block it cannot carry named where it is now', () => {
    const history = [
      { role: 'user', content: 'start' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'look', input: { at: 1 } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'seen' }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } }] },
    ].map((message) => deepFreeze(message))
    const remembered = (messages: unknown[]) => {
      const parsed = parseMessagesRequest({ model: 'm', max_tokens: 1, messages }, frozenThroughout)
      if (!parsed.ok) throw new Error(parsed.issue.message)
      return messagesToChat(parsed.request)
    }
    const first = remembered(history)
    const again = remembered([{ role: 'user', content: 'before' }, { role: 'assistant', content: 'ok' }, ...history])
    expect(first.request.messages).toEqual(messagesToChat(valid({ model: 'm', max_tokens: 1, messages: structuredClone(history) })).request.messages)
    again.request.messages.slice(2).forEach((message, i) => expect(message).toBe(first.request.messages[i]))
    expect(frozenThroughout(again.request.messages[2])).toBe(true)
    expect(first.untranslatable).toEqual({ param: 'messages[2].content[1]', what: 'image block' })
    expect(again.untranslatable).toEqual({ param: 'messages[4].content[1]', what: 'image block' })
  })
})
