import { describe, expect, it } from 'vitest'
import { chatUsageOf, finishReasonOf, messagesUsageOf, stopReasonOf } from '../../../shared/api/messages-chat-terms'
import { MessageEvents, toolUseId } from './message-events'
import { MessageReply } from './message-reply'

const usage = { input_tokens: 7, output_tokens: 3, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 }

describe('MessageEvents', () => {
  it('opens one block per kind in order and closes it before the next', () => {
    const events = new MessageEvents('msg_1', 'm')
    const all = [
      events.start(7),
      ...events.reasoning('think'),
      ...events.content('Hel'),
      ...events.content('lo'),
      ...events.toolCall({ index: 0, id: 'call_abc', type: 'function', function: { name: 'f', arguments: '' } }),
      ...events.toolCall({ index: 0, function: { arguments: '{"a":' } }),
      ...events.toolCall({ index: 0, function: { arguments: '1}' } }),
      ...events.toolCall({ index: 1, id: 'call_def', type: 'function', function: { name: 'g', arguments: '{}' } }),
      ...events.finish('tool_use', usage),
    ]
    expect(all.map((e) => ('index' in e ? `${e.type}:${e.index}` : e.type))).toEqual([
      'message_start',
      'content_block_start:0',
      'content_block_delta:0',
      'content_block_stop:0',
      'content_block_start:1',
      'content_block_delta:1',
      'content_block_delta:1',
      'content_block_stop:1',
      'content_block_start:2',
      'content_block_delta:2',
      'content_block_delta:2',
      'content_block_stop:2',
      'content_block_start:3',
      'content_block_delta:3',
      'content_block_stop:3',
      'message_delta',
      'message_stop',
    ])

    const reply = new MessageReply()
    reply.applyAll(all)
    expect(reply.result()).toEqual({
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [
        { type: 'thinking', thinking: 'think', signature: '' },
        { type: 'text', text: 'Hello' },
        { type: 'tool_use', id: 'toolu_abc', name: 'f', input: { a: 1 } },
        { type: 'tool_use', id: 'toolu_def', name: 'g', input: {} },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage,
    })
  })

  it('finishes an empty reply with no block at all', () => {
    const events = new MessageEvents('msg_2', 'm')
    expect(events.finish('max_tokens', usage).map((e) => e.type)).toEqual(['message_delta', 'message_stop'])
  })

  it('keeps arguments that are not JSON as the string they are', () => {
    const events = new MessageEvents('msg_3', 'm')
    const reply = new MessageReply()
    reply.applyAll([events.start(1), ...events.toolCall({ index: 0, id: 'x', function: { name: 'f', arguments: '{"a' } }), ...events.finish('tool_use', usage)])
    expect(reply.result()?.content).toEqual([{ type: 'tool_use', id: 'toolu_x', name: 'f', input: '{"a' }])
  })
})

describe('mapping chat terms', () => {
  it('stop reasons', () => {
    expect(['stop', 'length', 'tool_calls', 'content_filter', 'other', 'stop_sequence'].map(stopReasonOf)).toEqual([
      'end_turn',
      'max_tokens',
      'tool_use',
      'refusal',
      'end_turn',
      'stop_sequence',
    ])
    expect(['end_turn', 'max_tokens', 'tool_use', 'refusal', 'stop_sequence'].map(finishReasonOf)).toEqual(['stop', 'length', 'tool_calls', 'content_filter', 'stop_sequence'])
  })
  it('tool IDs keep a toolu_ ID and swap call_ for it', () => {
    expect(toolUseId('toolu_a')).toBe('toolu_a')
    expect(toolUseId('call_b')).toBe('toolu_b')
    expect(toolUseId(undefined)).toMatch(/^toolu_[0-9a-f]{24}$/)
  })
  it('usage leaves cached prompt tokens out of input_tokens', () => {
    expect(messagesUsageOf({ prompt_tokens: 10, completion_tokens: 2, total_tokens: 12, prompt_tokens_details: { cached_tokens: 4 } })).toEqual({
      input_tokens: 6,
      output_tokens: 2,
      cache_creation_input_tokens: 0,
      cache_read_input_tokens: 4,
    })
    expect(chatUsageOf({ input_tokens: 6, output_tokens: 2, cache_read_input_tokens: 4, cache_creation_input_tokens: 0 })).toEqual({
      prompt_tokens: 10,
      completion_tokens: 2,
      total_tokens: 12,
      prompt_tokens_details: { cached_tokens: 4 },
    })
  })
})
