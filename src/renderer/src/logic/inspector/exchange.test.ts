import { describe, expect, it } from 'vitest'
import { assembleFrames } from './assemble-reply'
import { exchangeMetrics, exchangeOutcome, type RecordedExchange } from './exchange'
import { StreamFrameRecorder } from './stream-frames'
import { STOPPED_COMMENT } from '../../../../shared/api/stream-notes'

const head = { id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm' }
const data = (value: unknown) => `data: ${typeof value === 'string' ? value : JSON.stringify(value)}\n\n`
const content = (text: string) => data({ ...head, choices: [{ index: 0, delta: { content: text }, logprobs: null, finish_reason: null }] })
const finish = data({ ...head, choices: [{ index: 0, logprobs: null, finish_reason: 'stop' }] })
const errorEvent = data({ error: { message: 'reset', type: 'upstream_error', param: null, code: 'upstream_error' } })

const sse: RecordedExchange['response'] = { status: 200, headers: [['content-type', 'text/event-stream; charset=utf-8']], at: 5 }

function exchange(parts: string[], end: RecordedExchange['end'], overrides: Partial<RecordedExchange> = {}): RecordedExchange {
  const recorder = new StreamFrameRecorder()
  const frames = parts.flatMap((part, i) => recorder.push(part, 10 * (i + 1)))
  if (end !== null && end.reason === 'eof') frames.push(...recorder.end(end.at))
  return {
    id: 'x',
    request: { url: 'http://127.0.0.1:1/v1/chat/completions', headers: {}, body: {} },
    sentAt: 0,
    response: sse,
    frames,
    bodyText: null,
    end,
    stopRequested: false,
    ...overrides,
  }
}

const outcomeOf = (ex: RecordedExchange) => exchangeOutcome(ex, assembleFrames(ex.frames))

describe('exchangeOutcome', () => {
  it('finished: a finish chunk and [DONE]', () => {
    expect(outcomeOf(exchange([content('a'), finish, data('[DONE]')], { at: 40, reason: 'eof' }))).toEqual({ kind: 'finished', finishReason: 'stop' })
  })

  it('stopped: [DONE] without a finish chunk, by whom the gateway says (or this window’s Stop)', () => {
    const eof = { at: 30, reason: 'eof' } as const
    expect(outcomeOf(exchange([content('a'), data('[DONE]')], eof))).toEqual({ kind: 'stopped', by: 'unknown' })
    const note = (by: keyof typeof STOPPED_COMMENT) => `: ${STOPPED_COMMENT[by]}\n\n`
    expect(outcomeOf(exchange([content('a'), note('stop_call'), data('[DONE]')], eof))).toEqual({ kind: 'stopped', by: 'stop_call' })
    expect(outcomeOf(exchange([content('a'), note('shutdown'), data('[DONE]')], eof))).toEqual({ kind: 'stopped', by: 'shutdown' })
    expect(outcomeOf(exchange([content('a'), note('stop_call'), data('[DONE]')], eof, { stopRequested: true }))).toEqual({
      kind: 'stopped',
      by: 'this_window',
    })
    // A shutdown overtaking this window's Stop is still a shutdown.
    expect(outcomeOf(exchange([content('a'), note('shutdown'), data('[DONE]')], eof, { stopRequested: true }))).toEqual({
      kind: 'stopped',
      by: 'shutdown',
    })
  })

  it('client disconnected: this client hung up before [DONE]', () => {
    expect(outcomeOf(exchange([content('a')], { at: 30, reason: 'client_aborted' }))).toEqual({ kind: 'client_disconnected' })
  })

  it('upstream error: an error event, whatever came after', () => {
    expect(outcomeOf(exchange([content('a'), errorEvent], { at: 30, reason: 'eof' }))).toEqual({
      kind: 'upstream_error',
      code: 'upstream_error',
      message: 'reset',
    })
  })

  it('incomplete: closed without [DONE] and without an error', () => {
    expect(outcomeOf(exchange([content('a')], { at: 30, reason: 'eof' }))).toEqual({ kind: 'incomplete' })
    expect(outcomeOf(exchange([content('a')], { at: 30, reason: 'network_error', message: 'cut' }))).toEqual({ kind: 'incomplete' })
  })

  it('sending and streaming while running', () => {
    expect(outcomeOf(exchange([], null, { response: null }))).toEqual({ kind: 'sending' })
    expect(outcomeOf(exchange([content('a')], null))).toEqual({ kind: 'streaming' })
  })

  it('an HTTP error with the envelope', () => {
    const ex = exchange([], { at: 3, reason: 'eof' }, {
      response: { status: 404, headers: [['content-type', 'application/json']], at: 3 },
      bodyText: JSON.stringify({ error: { message: 'The model `x` does not exist.', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } }),
    })
    expect(outcomeOf(ex)).toEqual({ kind: 'http_error', status: 404, code: 'model_not_found', message: 'The model `x` does not exist.' })
  })

  it('a network error before any response', () => {
    expect(outcomeOf(exchange([], { at: 3, reason: 'network_error', message: 'Failed to fetch' }, { response: null }))).toEqual({
      kind: 'network_error',
      message: 'Failed to fetch',
    })
  })

  it('a non-streamed reply is stopped only when the Stop button asked', () => {
    const json: RecordedExchange['response'] = { status: 200, headers: [['content-type', 'application/json']], at: 3 }
    expect(outcomeOf(exchange([], { at: 9, reason: 'eof' }, { response: json }))).toEqual({ kind: 'finished', finishReason: null })
    expect(outcomeOf(exchange([], { at: 9, reason: 'eof' }, { response: json, stopRequested: true }))).toEqual({ kind: 'stopped', by: 'this_window' })
  })
})

describe('exchangeMetrics', () => {
  it('measures TTFT, duration and the rate after the first token', () => {
    // Deltas at 10, 20, 30 and 40 ms: 3 tokens after the first in 30 ms.
    const ex = exchange([content('a'), content('b'), content('c'), content('d'), data('[DONE]')], { at: 60, reason: 'eof' })
    const metrics = exchangeMetrics(ex, assembleFrames(ex.frames), 1_000)
    expect(metrics).toEqual({ ttftMs: 10, durationMs: 60, completionTokens: 4, tokenSource: 'chunks', tokensPerSecond: 100 })
  })

  it('prefers the usage chunk, and runs the clock while streaming', () => {
    const usage = data({ ...head, choices: [], usage: { prompt_tokens: 1, completion_tokens: 9, total_tokens: 10 } })
    const ex = exchange([content('a'), content('b'), usage], null)
    const metrics = exchangeMetrics(ex, assembleFrames(ex.frames), 75)
    expect(metrics.durationMs).toBe(75)
    expect(metrics.completionTokens).toBe(9)
    expect(metrics.tokenSource).toBe('usage')
  })

  it('has no rate for a single token', () => {
    const ex = exchange([content('a'), data('[DONE]')], { at: 30, reason: 'eof' })
    expect(exchangeMetrics(ex, assembleFrames(ex.frames), 0).tokensPerSecond).toBeNull()
  })
})
