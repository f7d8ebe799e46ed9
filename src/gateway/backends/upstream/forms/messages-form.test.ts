import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../../tokens/tokenizer-registry'
import type { GenerationRequest } from '../../generation-request'
import { outgoingText } from '../../../http/json-splice'
import { messagesForm } from './messages-form'

const qwen = loadTokenizer('qwen2.5')
const form = messagesForm({ model: 'claude-x', max_tokens: 9000, messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'adaptive' }, extra: 1 })

describe('messagesForm', () => {
  it('sends the client’s body with the server’s model name, the planned max_tokens and stream', () => {
    const request = { stream: true } as GenerationRequest
    expect(JSON.parse(outgoingText(form.body(request, { model: 'qwen', maxTokens: 100, askForUsage: true })))).toEqual({
      model: 'qwen',
      max_tokens: 100,
      messages: [{ role: 'user', content: 'hi' }],
      thinking: { type: 'adaptive' },
      extra: 1,
      stream: true,
    })
    // With no limit planned, the client's own stands: Anthropic requires one.
    expect(JSON.parse(outgoingText(form.body({ stream: false } as GenerationRequest, { model: 'qwen', maxTokens: undefined, askForUsage: true }))).max_tokens).toBe(9000)
  })

  it('reads a stream’s thinking, text and tool-call blocks, then its stop reason and the server’s usage', () => {
    const decoder = form.decoder(qwen)
    const events = [
      { type: 'message_start', message: { id: 'msg_1', usage: { input_tokens: 10, cache_read_input_tokens: 5, output_tokens: 1 } } },
      { type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } },
      { type: 'content_block_delta', index: 0, delta: { type: 'signature_delta', signature: 'sig' } },
      { type: 'content_block_stop', index: 0 },
      { type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } },
      { type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } },
      { type: 'content_block_stop', index: 1 },
      { type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_9', name: 'f', input: {} } },
      { type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"a":1}' } },
      { type: 'content_block_stop', index: 2 },
      { type: 'ping' },
    ].flatMap((event) => decoder.events(event))
    expect(events).toEqual([
      { kind: 'reasoning', text: 'hmm', tokens: qwen.count('hmm') },
      { kind: 'content', text: 'Hi', tokens: qwen.count('Hi') },
      { kind: 'tool_call', delta: { index: 0, id: 'toolu_9', type: 'function', function: { name: 'f', arguments: '' } }, tokens: qwen.count('f') },
      { kind: 'tool_call', delta: { index: 0, function: { arguments: '{"a":1}' } }, tokens: qwen.count('{"a":1}') },
    ])
    expect(decoder.sawFinish).toBe(false)
    expect(decoder.events({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { output_tokens: 7 } })).toEqual([
      { kind: 'usage', usage: { prompt_tokens: 15, completion_tokens: 7, total_tokens: 22, prompt_tokens_details: { cached_tokens: 5 } } },
      { kind: 'finish', reason: 'tool_calls' },
    ])
    expect(decoder.sawFinish).toBe(true)
  })

  it('keeps a stop reason chat has no word for, and reads a tool call sent whole in its start', () => {
    const decoder = form.decoder(qwen)
    expect(decoder.events({ type: 'content_block_start', index: 0, content_block: { type: 'tool_use', id: 't', name: 'f', input: { a: 1 } } })).toMatchObject([
      { kind: 'tool_call', delta: { index: 0, id: 't' } },
      { kind: 'tool_call', delta: { index: 0, function: { arguments: '{"a":1}' } } },
    ])
    expect(decoder.events({ type: 'message_delta', delta: { stop_reason: 'stop_sequence' }, usage: { output_tokens: 1 } })[1]).toEqual({ kind: 'finish', reason: 'stop_sequence' })
  })

  it('reads a whole message', () => {
    expect(
      form.whole({
        type: 'message',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'text', text: 'Hi' },
          { type: 'tool_use', id: 'toolu_1', name: 'f', input: { a: 1 } },
        ],
        stop_reason: 'end_turn',
        usage: { input_tokens: 3, output_tokens: 2 },
      }),
    ).toEqual({
      content: 'Hi',
      reasoning: 'hmm',
      toolCalls: [{ id: 'toolu_1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }],
      finishReason: 'stop',
      usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
    })
    expect(form.whole({ error: { type: 'x' } })).toBeUndefined()
  })
})
