import { describe, expect, it } from 'vitest'
import { deepFreeze, frozenThroughout } from './element-results'
import { parseResponsesRequest, type ResponsesRequest } from './responses-request'
import { responsesToChat } from './responses-to-chat'

function request(body: Record<string, unknown>): ResponsesRequest {
  const parsed = parseResponsesRequest(body)
  if (!parsed.ok) throw new Error(parsed.issue.message)
  return parsed.request
}

describe('a Responses request as a chat completion', () => {
  it('puts instructions first as the system message, and developer messages as system ones', () => {
    const chat = responsesToChat(
      request({ instructions: 'Be brief.', input: [{ role: 'developer', content: 'Use tools.' }, { role: 'user', content: 'Hi' }] }),
    )
    expect(chat.conversation.messages).toEqual([
      { role: 'system', content: 'Be brief.' },
      { role: 'system', content: 'Use tools.' },
      { role: 'user', content: 'Hi' },
    ])
  })

  it('keeps a multi-turn conversation in order', () => {
    const chat = responsesToChat(
      request({
        input: [
          { role: 'user', content: 'one' },
          { role: 'assistant', content: [{ type: 'output_text', text: 'two' }] },
          { role: 'user', content: 'three' },
        ],
      }),
    )
    expect(chat.conversation.messages.map((m) => [m.role, m.content])).toEqual([
      ['user', 'one'],
      ['assistant', 'two'],
      ['user', 'three'],
    ])
  })

  it('joins calls to the assistant message before them, and makes results tool messages; reasoning is dropped', () => {
    const chat = responsesToChat(
      request({
        input: [
          { role: 'user', content: 'weather?' },
          { type: 'reasoning', id: 'rs_1', summary: [] },
          { role: 'assistant', content: 'Let me look.' },
          { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
          { type: 'function_call', call_id: 'c2', name: 'weather', arguments: '{"city":"Rome"}' },
          { type: 'function_call_output', call_id: 'c1', output: '18' },
          { type: 'function_call_output', call_id: 'c2', output: '25' },
          { type: 'function_call', call_id: 'c3', name: 'weather', arguments: '{}' },
        ],
      }),
    )
    expect(chat.conversation.messages).toEqual([
      { role: 'user', content: 'weather?' },
      {
        role: 'assistant',
        content: 'Let me look.',
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'weather', arguments: '{"city":"Paris"}' } },
          { id: 'c2', type: 'function', function: { name: 'weather', arguments: '{"city":"Rome"}' } },
        ],
      },
      { role: 'tool', content: '18', tool_call_id: 'c1' },
      { role: 'tool', content: '25', tool_call_id: 'c2' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c3', type: 'function', function: { name: 'weather', arguments: '{}' } }] },
    ])
  })

  it('turns function tools into chat tools, and the tool choice into chat’s', () => {
    const tools = [
      { type: 'function', name: 'a', description: 'A', parameters: { type: 'object' }, strict: true },
      { type: 'function', name: 'b' },
      { type: 'web_search' },
    ]
    const named = responsesToChat(request({ input: 'x', tools, tool_choice: { type: 'function', name: 'b' }, parallel_tool_calls: false }))
    expect(named.conversation.tools).toEqual([
      { type: 'function', function: { name: 'a', description: 'A', parameters: { type: 'object' }, strict: true } },
      { type: 'function', function: { name: 'b' } },
    ])
    expect(named.conversation.toolChoice).toEqual({ type: 'function', function: { name: 'b' } })
    expect(named.conversation.parallelToolCalls).toBe(false)

    const allowed = responsesToChat(request({ input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }] } }))
    expect(allowed.conversation.tools.map((t) => t.function.name)).toEqual(['b'])
    expect(allowed.conversation.toolChoice).toBe('required')
  })

  it('sends no tools and no choice when only tools the API’s own server runs were given', () => {
    const chat = responsesToChat(request({ input: 'x', tools: [{ type: 'web_search' }], tool_choice: 'auto', parallel_tool_calls: true }))
    expect(chat.conversation).toMatchObject({ tools: [], toolChoice: undefined, parallelToolCalls: undefined })
  })

  it('maps sampling, text.format and reasoning effort to chat’s fields', () => {
    const chat = responsesToChat(
      request({
        input: 'x',
        temperature: 0.5,
        top_p: 0.9,
        reasoning: { effort: 'low', summary: 'auto' },
        text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
      }),
    )
    expect(chat.extraFields).toEqual({
      temperature: 0.5,
      top_p: 0.9,
      reasoning_effort: 'low',
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object' }, strict: true } },
    })
    expect(responsesToChat(request({ input: 'x', text: { format: { type: 'text' } } })).extraFields).toEqual({})
  })

  it('translates remembered items once, and joins a call to a remembered assistant message without changing it', () => {
    const items = [
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: 'Let me look.' },
      { type: 'function_call', call_id: 'c1', name: 'weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'c1', output: '18' },
    ].map((item) => deepFreeze(item))
    const remembered = (input: unknown[]) => {
      const parsed = parseResponsesRequest({ model: 'm', input }, frozenThroughout)
      if (!parsed.ok) throw new Error(parsed.issue.message)
      return responsesToChat(parsed.request).conversation.messages
    }
    const first = remembered(items)
    const again = remembered([...items, { role: 'user', content: 'thanks' }])
    expect(first).toEqual(responsesToChat(request({ model: 'm', input: structuredClone(items) })).conversation.messages)
    expect(again[0]).toBe(first[0])
    expect(again[2]).toBe(first[2])
    expect(frozenThroughout(again[2])).toBe(true)
    // The remembered assistant message, alone, has no call: the one before took it in a copy.
    expect(remembered([items[1]])).toEqual([{ role: 'assistant', content: 'Let me look.' }])
  })

  it('keeps the assistant message a remembered call starts, and makes one anew for a call that may change', () => {
    const call = { type: 'function_call', call_id: 'c1', name: 'read_file', arguments: '{"path":"a.ts"}' }
    const messagesOf = (input: unknown[]) => {
      const parsed = parseResponsesRequest({ model: 'm', input }, frozenThroughout)
      if (!parsed.ok) throw new Error(parsed.issue.message)
      return responsesToChat(parsed.request).conversation.messages
    }
    const items = [{ role: 'user', content: 'read a.ts' }, call, { type: 'function_call_output', call_id: 'c1', output: 'export {}' }].map((item) => deepFreeze(structuredClone(item)))
    const first = messagesOf(items)
    const again = messagesOf([...items, { role: 'user', content: 'and b.ts?' }])
    expect(first[1]).toEqual({ role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] })
    expect(again[1]).toBe(first[1])
    expect(frozenThroughout(first[1])).toBe(true)
    // Not frozen: its message is its own, each time.
    const fresh = messagesOf([{ role: 'user', content: 'read a.ts' }, structuredClone(call)])
    expect(fresh[1]).toEqual(first[1])
    expect(fresh[1]).not.toBe(messagesOf([{ role: 'user', content: 'read a.ts' }, structuredClone(call)])[1])
    expect(Object.isFrozen(fresh[1])).toBe(false)
  })
})
