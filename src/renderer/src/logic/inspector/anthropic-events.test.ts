import { describe, expect, it } from 'vitest'
import { assembleFrames } from './assemble-reply'
import { inspectCaptured } from './captured-exchange'
import { summarizeFrame } from './frame-summary'
import { StreamFrameRecorder } from './stream-frames'

const event = (data: Record<string, unknown>) => `event: ${String(data.type)}\ndata: ${JSON.stringify(data)}\n\n`

/** A Messages stream as the gateway writes it: thinking, text, a tool call, the stop reason and usage. */
const STREAM = [
  event({ type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'm', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 12, output_tokens: 0 } } }),
  event({ type: 'ping' }),
  event({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '', signature: '' } }),
  event({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
  event({ type: 'content_block_stop', index: 0 }),
  event({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
  event({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Hi' } }),
  event({ type: 'content_block_stop', index: 1 }),
  event({ type: 'content_block_start', index: 2, content_block: { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: {} } }),
  event({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"city":' } }),
  event({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"Paris"}' } }),
  event({ type: 'content_block_stop', index: 2 }),
  event({ type: 'message_delta', delta: { stop_reason: 'tool_use', stop_sequence: null }, usage: { input_tokens: 12, output_tokens: 9 } }),
  event({ type: 'message_stop' }),
].join('')

function frames(text: string) {
  const recorder = new StreamFrameRecorder()
  return [...recorder.push(text, 1), ...recorder.end(2)]
}

describe('Anthropic Messages streams in the inspector', () => {
  it('shows what each event carries, or names it when it carries nothing', () => {
    expect(frames(STREAM).map((frame) => summarizeFrame(frame).text)).toEqual([
      'role assistant · usage prompt 12 · completion 0',
      'ping',
      'event content_block_start thinking [0]',
      'reasoning "hmm"',
      'event content_block_stop [0]',
      'event content_block_start text [1]',
      'content "Hi"',
      'event content_block_stop [1]',
      'tool [2] get_weather id toolu_1',
      'tool [2] "{\\"city\\":"',
      'tool [2] "\\"Paris\\"}"',
      'event content_block_stop [2]',
      'finish tool_use · usage prompt 12 · completion 9',
      'event message_stop',
    ])
    expect(frames(STREAM).every((frame) => frame.kind === 'event')).toBe(true)
  })

  it('assembles the reply: text, reasoning, the tool call, the stop reason, usage and a complete stream', () => {
    const reply = assembleFrames(frames(STREAM))
    expect(reply).toMatchObject({
      id: 'msg_1',
      role: 'assistant',
      content: 'Hi',
      reasoning: 'hmm',
      finishReason: 'tool_use',
      usage: { prompt_tokens: 12, completion_tokens: 9 },
      sawDone: true,
      anomalies: [],
    })
    expect(reply.toolCalls).toEqual([{ index: 2, id: 'toolu_1', type: 'function', name: 'get_weather', arguments: '{"city":"Paris"}', pieces: 3 }])
  })

  it('reads an error event as the error it is', () => {
    const [frame] = frames(event({ type: 'error', error: { type: 'overloaded_error', message: 'busy' } }))
    expect(frame?.kind).toBe('error')
    expect(frame === undefined ? '' : summarizeFrame(frame).text).toBe('error overloaded_error: busy')
  })

  it('reads a captured JSON message as its reply', () => {
    const body = JSON.stringify({
      id: 'msg_2',
      type: 'message',
      role: 'assistant',
      model: 'm',
      content: [{ type: 'text', text: 'Hello' }, { type: 'tool_use', id: 'toolu_2', name: 'f', input: { a: 1 } }],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 3, output_tokens: 4 },
    })
    const inspection = inspectCaptured(
      {
        id: 'x_1',
        started_at: new Date(0).toISOString(),
        duration_ms: 5,
        status: 200,
        outcome: 'finished',
        finish_reason: 'tool_calls',
        error: null,
        request: { method: 'POST', url: '/v1/messages', headers: [], body: '{}' },
        response: { headers: [], body, frames: [] },
        upstream: null,
        model_body: null,
      } as unknown as Parameters<typeof inspectCaptured>[0],
      'http://127.0.0.1:7313',
    )
    expect(inspection.client.reply).toMatchObject({ id: 'msg_2', content: 'Hello', finishReason: 'tool_use', usage: { prompt_tokens: 3, completion_tokens: 4 } })
    expect(inspection.client.reply.toolCalls).toMatchObject([{ id: 'toolu_2', name: 'f', arguments: '{"a":1}' }])
  })
})
