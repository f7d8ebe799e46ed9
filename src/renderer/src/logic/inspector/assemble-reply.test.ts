import { DEFAULT_MODEL_ID } from '../../../../shared/api/chat-request'
import { STOPPED_COMMENT } from '../../../../shared/api/stream-notes'
import { describe, expect, it } from 'vitest'
import { argumentsAreJson, assembleCompletion, assembleFrames, assembleTextCompletion } from './assemble-reply'
import { StreamFrameRecorder, type StreamFrame } from './stream-frames'

const head = { id: 'chatcmpl-abc', object: 'chat.completion.chunk', created: 1, model: DEFAULT_MODEL_ID }
const data = (value: unknown) => `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`
const delta = (d: object) => data({ ...head, choices: [{ index: 0, delta: d, logprobs: null, finish_reason: null }] })
const finish = (reason: string) => data({ ...head, choices: [{ index: 0, logprobs: null, finish_reason: reason }] })
const usage = (p: number, c: number) => data({ ...head, choices: [], usage: { prompt_tokens: p, completion_tokens: c, total_tokens: p + c } })

/** Each string arrives 10 ms after the previous one. */
function record(parts: string[]): StreamFrame[] {
  const recorder = new StreamFrameRecorder()
  const frames = parts.flatMap((part, i) => recorder.push(part, (i + 1) * 10))
  return [...frames, ...recorder.end(parts.length * 10 + 1)]
}

describe('assembleFrames', () => {
  it('assembles text, finish reason, usage and [DONE]', () => {
    const reply = assembleFrames(
      record([delta({ role: 'assistant' }), ': ping\n\n', delta({ content: 'Hel' }), delta({ content: 'lo' }), finish('stop'), usage(12, 2), data('[DONE]')]),
    )
    expect(reply).toMatchObject({
      id: 'chatcmpl-abc',
      model: DEFAULT_MODEL_ID,
      role: 'assistant',
      content: 'Hello',
      finishReason: 'stop',
      usage: { prompt_tokens: 12, completion_tokens: 2, total_tokens: 14 },
      sawDone: true,
      chunks: 5,
      deltas: 2,
      firstDeltaAt: 30,
      lastDeltaAt: 40,
      pings: 1,
      anomalies: [],
    })
  })

  it('keeps the reasoning apart from the reply text', () => {
    const reply = assembleFrames(
      record([delta({ role: 'assistant' }), delta({ reasoning_content: 'Two plus' }), delta({ reasoning_content: ' two.' }), delta({ content: '4' }), finish('stop'), data('[DONE]')]),
    )
    expect(reply).toMatchObject({ content: '4', reasoning: 'Two plus two.', deltas: 3, firstDeltaAt: 20 })
    const completion = assembleCompletion({
      id: 'chatcmpl-abc',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: '4', reasoning_content: 'Two plus two.' }, logprobs: null, finish_reason: 'stop' }],
      usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 },
    })
    expect(completion).toMatchObject({ content: '4', reasoning: 'Two plus two.' })
  })

  it('puts tool calls together from their pieces by index', () => {
    const reply = assembleFrames(
      record([
        delta({ role: 'assistant' }),
        delta({ tool_calls: [{ index: 0, id: 'call_a', type: 'function', function: { name: 'get_weather', arguments: '' } }] }),
        delta({ tool_calls: [{ index: 1, id: 'call_b', type: 'function', function: { name: 'get_time', arguments: '' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }),
        delta({ tool_calls: [{ index: 1, function: { arguments: '{}' } }] }),
        delta({ tool_calls: [{ index: 0, function: { arguments: '"Paris"}' } }] }),
        finish('tool_calls'),
        data('[DONE]'),
      ]),
    )
    expect(reply.toolCalls).toEqual([
      { index: 0, id: 'call_a', type: 'function', name: 'get_weather', arguments: '{"city":"Paris"}', pieces: 3 },
      { index: 1, id: 'call_b', type: 'function', name: 'get_time', arguments: '{}', pieces: 2 },
    ])
    expect(reply.finishReason).toBe('tool_calls')
    expect(reply.deltas).toBe(5)
    expect(reply.toolCalls.every((call) => argumentsAreJson(call.arguments))).toBe(true)
  })

  it('keeps the error event and notes what is wrong with the stream', () => {
    const reply = assembleFrames(
      record([
        delta({ content: 'a' }),
        delta({ tool_calls: [{ id: 'x', function: { arguments: '' } }] }),
        data('oops'),
        data({ error: { message: 'The model server closed the stream.', type: 'upstream_error', param: null, code: 'upstream_error' } }),
      ]),
    )
    expect(reply.error?.code).toBe('upstream_error')
    expect(reply.sawDone).toBe(false)
    expect(reply.anomalies).toEqual(['frame 1: a tool-call piece without an index', 'frame 2: data that is not a chunk'])
  })

  it('notes data after [DONE] and a stream cut inside a frame', () => {
    const recorder = new StreamFrameRecorder()
    const frames = [...recorder.push(data('[DONE]') + delta({ content: 'late' }) + 'data: {', 1), ...recorder.end(2)]
    expect(assembleFrames(frames).anomalies).toEqual(['frame 1: chunk after [DONE]', 'frame 2: partial after [DONE]', 'frame 2: the stream ended inside a frame'])
  })

  it('assembles 10,000 frames quickly', () => {
    const parts = Array.from({ length: 10_000 }, (_, i) => delta({ content: String(i % 10) }))
    const frames = record(parts)
    const started = performance.now()
    const reply = assembleFrames(frames)
    expect(performance.now() - started).toBeLessThan(500)
    expect(reply.content).toHaveLength(10_000)
  })
})

// POST /v1/completions streams `text_completion` chunks, written as the gateway writes them: a
// piece of text in each choice's `text` (no delta, no role), an empty text with the finish reason,
// the usage chunk when asked, then [DONE].
describe('assembleFrames, text_completion chunks', () => {
  const cmpl = { id: 'cmpl-abc', object: 'text_completion', created: 1, model: DEFAULT_MODEL_ID }
  const text = (piece: string, finishReason: string | null = null) => data({ ...cmpl, choices: [{ text: piece, index: 0, logprobs: null, finish_reason: finishReason }] })
  const usageChunk = data({ ...cmpl, choices: [], usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 } })

  it('assembles the text, the finish reason and the usage', () => {
    const reply = assembleFrames(record([text('def '), text('add('), text('a, b):'), text('', 'length'), usageChunk, data('[DONE]')]))
    expect(reply).toMatchObject({
      id: 'cmpl-abc',
      model: DEFAULT_MODEL_ID,
      role: null,
      content: 'def add(a, b):',
      finishReason: 'length',
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10 },
      sawDone: true,
      chunks: 5,
      deltas: 3,
      firstDeltaAt: 10,
      lastDeltaAt: 30,
      anomalies: [],
    })
  })

  it('says who stopped a stopped one, which still finishes with stop', () => {
    const reply = assembleFrames(record([text('Hel'), text('', 'stop'), `: ${STOPPED_COMMENT.stop_call}\n\n`, data('[DONE]')]))
    expect(reply).toMatchObject({ content: 'Hel', finishReason: 'stop', stoppedBy: 'stop_call', sawDone: true })
  })

  it('reads a non-streamed reply into the same view', () => {
    expect(
      assembleTextCompletion({ ...cmpl, choices: [{ text: 'return a + b', finish_reason: 'stop' }], usage: { prompt_tokens: 7, completion_tokens: 5, total_tokens: 12 } }),
    ).toMatchObject({ id: 'cmpl-abc', content: 'return a + b', finishReason: 'stop', usage: { total_tokens: 12 }, toolCalls: [] })
  })
})

describe('assembleCompletion', () => {
  it('reads a non-streamed reply into the same view', () => {
    const reply = assembleCompletion({
      id: 'chatcmpl-x',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: '{}' } }] },
          logprobs: null,
          finish_reason: 'tool_calls',
        },
      ],
      usage: { prompt_tokens: 3, completion_tokens: 4, total_tokens: 7 },
    })
    expect(reply).toMatchObject({ content: '', finishReason: 'tool_calls', usage: { total_tokens: 7 } })
    expect(reply.toolCalls).toEqual([{ index: 0, id: 'call_1', type: 'function', name: 'f', arguments: '{}', pieces: 1 }])
  })
})
