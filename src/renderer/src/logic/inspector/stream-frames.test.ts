import { describe, expect, it } from 'vitest'
import { classifyEvents, StreamFrameRecorder } from './stream-frames'

const chunk = (delta: object, finish: string | null = null) =>
  JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })

describe('StreamFrameRecorder', () => {
  it('records each frame with its exact text, arrival time and the time since the previous one', () => {
    const recorder = new StreamFrameRecorder()
    const first = recorder.push(`data: ${chunk({ role: 'assistant' })}\n\n: ping\n\n`, 40)
    const second = recorder.push(`data: ${chunk({ content: 'Hi' })}\n\ndata: [DONE]\n\n`, 65)
    const frames = [...first, ...second, ...recorder.end(70)]
    expect(frames.map((f) => [f.seq, f.kind, f.at, f.dt])).toEqual([
      [0, 'chunk', 40, 40],
      [1, 'ping', 40, 0],
      [2, 'chunk', 65, 25],
      [3, 'done', 65, 0],
    ])
    expect(frames[1]?.raw).toBe(': ping\n\n')
    expect(frames[2]?.chunk?.choices[0]?.delta?.content).toBe('Hi')
  })

  it('keeps a frame split across network reads whole, timed by the read that completed it', () => {
    const recorder = new StreamFrameRecorder()
    const text = `data: ${chunk({ content: 'Grüße' })}\n\n`
    const bytes = new TextEncoder().encode(text)
    expect(recorder.push(bytes.slice(0, 30), 10)).toEqual([])
    const frames = recorder.push(bytes.slice(30), 12)
    expect(frames).toHaveLength(1)
    expect(frames[0]?.raw).toBe(text)
    expect(frames[0]?.at).toBe(12)
  })

  it('reports an error event and text left after the last frame', () => {
    const recorder = new StreamFrameRecorder()
    const frames = [
      ...recorder.push('data: {"error":{"message":"gone","type":"upstream_error","param":null,"code":"upstream_error"}}\n\ndata: {"cut', 5),
      ...recorder.end(9),
    ]
    expect(frames.map((f) => f.kind)).toEqual(['error', 'partial'])
    expect(frames[0]?.error?.code).toBe('upstream_error')
    expect(frames[1]?.raw).toBe('data: {"cut')
  })
})

describe('classifyEvents', () => {
  it('tells frames apart', () => {
    expect(classifyEvents([{ kind: 'data', data: 'not json' }]).kind).toBe('invalid')
    expect(classifyEvents([{ kind: 'data', data: '{"x":1}' }]).kind).toBe('invalid')
    expect(classifyEvents([{ kind: 'comment', text: 'connected' }]).kind).toBe('comment')
    expect(classifyEvents([{ kind: 'comment', text: 'ping' }]).kind).toBe('ping')
    expect(classifyEvents([]).kind).toBe('other')
  })
})
