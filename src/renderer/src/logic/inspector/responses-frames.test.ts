import { describe, expect, it } from 'vitest'
import { assembleFrames, assembleResponse } from './assemble-reply'
import { summarizeFrame } from './frame-summary'
import { StreamFrameRecorder, type StreamFrame } from './stream-frames'

// A Responses API stream as POST /v1/responses sends it: named events, each JSON naming its type.
let sequence = 0
const event = (body: Record<string, unknown>) => `event: ${String(body.type)}\ndata: ${JSON.stringify({ ...body, sequence_number: sequence++ })}\n\n`
const response = (status: string, extra: Record<string, unknown> = {}) => ({ id: 'resp_1', object: 'response', model: 'm', status, output: [], ...extra })
const usage = { input_tokens: 12, input_tokens_details: { cached_tokens: 4 }, output_tokens: 3, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 }

const textStream = (ending: Record<string, unknown>) => [
  event({ type: 'response.created', response: response('in_progress') }),
  event({ type: 'response.in_progress', response: response('in_progress') }),
  event({ type: 'response.output_item.added', output_index: 0, item: { id: 'rs_1', type: 'reasoning', summary: [] } }),
  event({ type: 'response.reasoning_summary_text.delta', item_id: 'rs_1', output_index: 0, summary_index: 0, delta: 'hmm' }),
  event({ type: 'response.output_item.added', output_index: 1, item: { id: 'msg_1', type: 'message', role: 'assistant', content: [] } }),
  event({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'Hel', logprobs: [] }),
  event({ type: 'response.output_text.delta', item_id: 'msg_1', output_index: 1, content_index: 0, delta: 'lo', logprobs: [] }),
  event({ type: 'response.output_item.added', output_index: 2, item: { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '' } }),
  event({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 2, delta: '{"a":' }),
  event({ type: 'response.function_call_arguments.delta', item_id: 'fc_1', output_index: 2, delta: '1}' }),
  event(ending),
]

function record(parts: string[]): StreamFrame[] {
  const recorder = new StreamFrameRecorder()
  const frames = parts.flatMap((part, i) => recorder.push(part, (i + 1) * 10))
  return [...frames, ...recorder.end(parts.length * 10 + 1)]
}

describe('a Responses stream in the inspector', () => {
  it('reads every event as an event frame, and an error event as an error', () => {
    const frames = record([...textStream({ type: 'response.completed', response: response('completed', { usage }) }), event({ type: 'error', code: 'upstream_error', message: 'gone', param: null })])
    expect(frames.map((f) => f.kind)).toEqual([...Array<string>(11).fill('event'), 'error'])
    expect(frames[0]?.event?.type).toBe('response.created')
    expect(frames[11]?.error).toMatchObject({ message: 'gone', code: 'upstream_error' })
  })

  it('summarizes deltas as text, reasoning and tool pieces, and the rest by name', () => {
    const texts = record(textStream({ type: 'response.completed', response: response('completed', { usage }) })).map((f) => summarizeFrame(f).text)
    expect(texts).toEqual([
      'event response.created resp_1',
      'event response.in_progress resp_1',
      'event response.output_item.added reasoning rs_1',
      'reasoning "hmm"',
      'event response.output_item.added message msg_1',
      'content "Hel"',
      'content "lo"',
      'tool [2] f id call_1',
      'tool [2] "{\\"a\\":"',
      'tool [2] "1}"',
      'finish completed · usage prompt 12 · completion 3 · cached 4',
    ])
  })

  it('assembles the reply: text, reasoning, the call, usage, and the terminal event as the end', () => {
    const reply = assembleFrames(record(textStream({ type: 'response.completed', response: response('completed', { usage }) })))
    expect(reply).toMatchObject({
      id: 'resp_1',
      model: 'm',
      role: 'assistant',
      content: 'Hello',
      reasoning: 'hmm',
      toolCalls: [{ index: 2, id: 'call_1', name: 'f', arguments: '{"a":1}', pieces: 3 }],
      finishReason: 'completed',
      usage: { prompt_tokens: 12, completion_tokens: 3, total_tokens: 15, prompt_tokens_details: { cached_tokens: 4 } },
      sawDone: true,
      deltas: 6,
      anomalies: [],
    })
  })

  it('says why a response is incomplete, and reads Mortar’s stop as a stop', () => {
    const cut = assembleFrames(record(textStream({ type: 'response.incomplete', response: response('incomplete', { incomplete_details: { reason: 'max_output_tokens' } }) })))
    expect(cut.finishReason).toBe('max_output_tokens')
    const stopped = assembleFrames(record(textStream({ type: 'response.incomplete', response: response('incomplete', { incomplete_details: { reason: 'stopped' } }) })))
    expect(stopped).toMatchObject({ finishReason: null, stoppedBy: 'stop_call', sawDone: true })
  })

  it('takes a failed response’s error', () => {
    const failed = assembleFrames(record(textStream({ type: 'response.failed', response: response('failed', { error: { code: 'upstream_error', message: 'reset' } }) })))
    expect(failed.error).toMatchObject({ message: 'reset' })
    expect(failed.finishReason).toBeNull()
  })
})

describe('assembleResponse', () => {
  it('reads a JSON response object: message text, reasoning summary, calls, status and usage', () => {
    const reply = assembleResponse({
      ...response('completed'),
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'think' }] },
        { id: 'msg_1', type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations: [] }] },
        { id: 'fc_1', type: 'function_call', call_id: 'call_1', name: 'f', arguments: '{}' },
      ],
      usage,
    })
    expect(reply).toMatchObject({
      id: 'resp_1',
      content: 'Hi',
      reasoning: 'think',
      toolCalls: [{ index: 2, id: 'call_1', name: 'f', arguments: '{}' }],
      finishReason: 'completed',
      usage: { prompt_tokens: 12, completion_tokens: 3 },
    })
  })
})
