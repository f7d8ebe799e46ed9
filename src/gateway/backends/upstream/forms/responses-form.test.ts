import { describe, expect, it } from 'vitest'
import { deepFreeze, frozenThroughout } from '../../../../shared/api/element-results'
import type { ChatMessage } from '../../../../shared/api/chat-request'
import { o200kTokenizer } from '../../../tokens/gpt-tokenizer'
import { ResponsesEventDecoder, responsesInput, wholeResponse } from './responses-form'

describe('a model server’s Responses events as generation events', () => {
  it('reads text, reasoning, a call’s pieces, and the ending with its usage', () => {
    const decoder = new ResponsesEventDecoder(o200kTokenizer)
    const events = [
      { type: 'response.created', response: { id: 'resp_x', status: 'in_progress' } },
      { type: 'response.reasoning_text.delta', item_id: 'rs', output_index: 0, delta: 'think' },
      { type: 'response.output_text.delta', item_id: 'msg', output_index: 1, delta: 'Hi' },
      { type: 'response.output_item.added', output_index: 2, item: { type: 'function_call', id: 'fc', call_id: 'call_9', name: 'f', arguments: '' } },
      { type: 'response.function_call_arguments.delta', item_id: 'fc', output_index: 2, delta: '{}' },
      { type: 'response.completed', response: { status: 'completed', usage: { input_tokens: 5, output_tokens: 3, total_tokens: 8, input_tokens_details: { cached_tokens: 2 } } } },
    ].flatMap((event) => decoder.events(event))
    expect(events.map((event) => event.kind)).toEqual(['reasoning', 'content', 'tool_call', 'tool_call', 'usage', 'finish'])
    expect(events[2]).toMatchObject({ delta: { index: 0, id: 'call_9', type: 'function', function: { name: 'f', arguments: '' } } })
    expect(events[3]).toMatchObject({ delta: { index: 0, function: { arguments: '{}' } } })
    expect(events[4]).toEqual({ kind: 'usage', usage: { prompt_tokens: 5, completion_tokens: 3, total_tokens: 8, prompt_tokens_details: { cached_tokens: 2 } } })
    expect(events[5]).toEqual({ kind: 'finish', reason: 'tool_calls' })
    expect(decoder.sawFinish).toBe(true)
  })

  it('leaves unparsed only events it would make nothing of (the opening response objects)', () => {
    const decoder = new ResponsesEventDecoder(o200kTokenizer)
    expect([...decoder.unread]).toEqual(['response.created', 'response.in_progress'])
    for (const type of decoder.unread) {
      expect(decoder.events({ type, response: { id: 'resp_x', status: 'in_progress', instructions: 'x'.repeat(4096), output: [], usage: null } })).toEqual([])
    }
    expect(decoder.sawFinish).toBe(false)
  })

  it('reads a response cut at its limit as length', () => {
    const decoder = new ResponsesEventDecoder(o200kTokenizer)
    expect(decoder.events({ type: 'response.incomplete', response: { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } } })).toEqual([
      { kind: 'finish', reason: 'length' },
    ])
  })

  it('takes a failed response or an error event for the server’s failure', () => {
    const decoder = new ResponsesEventDecoder(o200kTokenizer)
    expect(() => decoder.events({ type: 'response.failed', response: { error: { message: 'out of memory' } } })).toThrow('out of memory')
    expect(() => decoder.events({ type: 'error', message: 'overloaded' })).toThrow('overloaded')
  })
})

describe('a Responses JSON reply as a whole reply', () => {
  it('gathers the message text, reasoning and calls, and the status as the finish', () => {
    expect(
      wholeResponse({
        status: 'completed',
        output: [
          { type: 'reasoning', summary: [{ type: 'summary_text', text: 'hm' }] },
          { type: 'message', content: [{ type: 'output_text', text: 'Hi' }] },
          { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        ],
        usage: { input_tokens: 1, output_tokens: 2, total_tokens: 3 },
      }),
    ).toEqual({
      content: 'Hi',
      reasoning: 'hm',
      toolCalls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }],
      finishReason: 'tool_calls',
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    })
    expect(wholeResponse({ choices: [] })).toBeUndefined()
  })
})

describe('a conversation as Responses input', () => {
  it('makes the first system message the instructions, and calls and results items', () => {
    expect(
      responsesInput([
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'Hi' },
        { role: 'system', content: 'Later rule.' },
        { role: 'assistant', content: 'Looking.', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', content: 'done', tool_call_id: 'c1' },
      ]),
    ).toEqual({
      instructions: 'Be brief.',
      input: [
        { type: 'message', role: 'user', content: 'Hi' },
        { type: 'message', role: 'developer', content: 'Later rule.' },
        { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Looking.' }] },
        { type: 'function_call', call_id: 'c1', name: 'f', arguments: '{}' },
        { type: 'function_call_output', call_id: 'c1', output: 'done' },
      ],
    })
  })
})

describe('a conversation as Responses input', () => {
  it('makes the same items of a remembered message each time, and the same as of one that may change', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'rules' },
      { role: 'user', content: 'q' },
      { role: 'assistant', content: 'a', tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'r' },
      { role: 'system', content: 'later rule' },
    ]
    const frozen = messages.map((message) => deepFreeze(structuredClone(message)))
    const first = responsesInput(frozen)
    expect(first).toEqual(responsesInput(messages))
    expect(first.instructions).toBe('rules')
    const again = responsesInput(frozen)
    again.input.forEach((item, i) => (i < 4 ? expect(item).toBe(first.input[i]) : expect(item).toEqual(first.input[i])))
    expect(frozenThroughout(again.input[0])).toBe(true)
  })
})
