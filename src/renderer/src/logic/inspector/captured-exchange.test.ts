import { describe, expect, it } from 'vitest'
import { exchangeSchema, type Exchange } from '../../../../shared/api/traffic'
import { inspectCaptured, replayedHeaders } from './captured-exchange'

const chunk = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }] })}\n\n`

function exchange(patch: Partial<Exchange> = {}): Exchange {
  // Parsed with the contract's own schema, so the fixture is one the API could send.
  return exchangeSchema.parse({
    id: 'ex_1',
    started_at: '2026-12-01T08:00:00.000Z',
    method: 'POST',
    endpoint: '/v1/chat/completions',
    status: 200,
    outcome: 'finished',
    finish_reason: 'stop',
    client: { kind: 'key', key_id: 'key_1', key_name: 'cline', key_hint: 'mk_live_…abcd', label: 'cline' },
    org: 'default',
    request_id: 'req_1',
    completion_id: 'chatcmpl-1',
    model: 'm',
    deployment: 'd',
    replica: null,
    session: 's',
    stream: true,
    ttft_ms: 5,
    duration_ms: 20,
    usage: null,
    usage_source: null,
    cached_tokens: null,
    error: null,
    truncated: null,
    size_bytes: 100,
    request: {
      url: '/v1/chat/completions',
      headers: [
        ['authorization', 'Bearer mk_live_…abcd'],
        ['x-mortar-session', 's'],
        ['user-agent', 'OpenAI/JS 6.49.0'],
      ],
      body: '{"messages":[{"role":"user","content":"hi"}]}',
    },
    model_body: '{"messages":[{"role":"user","content":"hi"}],"stream":true}',
    response: {
      headers: [['content-type', 'text/event-stream; charset=utf-8']],
      // Two events in one captured piece, and one event split over two: cut as a live stream is.
      frames: [
        { t_ms: 5, raw: chunk({ role: 'assistant', content: '' }) + chunk({ content: 'Hel' }) },
        { t_ms: 9, raw: chunk({ content: 'lo' }).slice(0, 20) },
        { t_ms: 12, raw: chunk({ content: 'lo' }).slice(20) + chunk({}, 'stop') + 'data: [DONE]\n\n' },
      ],
      body: null,
    },
    upstream: null,
    ...patch,
  })
}

describe('inspectCaptured', () => {
  it('reads a captured stream into frames with their times, the reply and the outcome', () => {
    const seen = inspectCaptured(exchange(), 'http://127.0.0.1:7313')
    expect(seen.client.frames.map((f) => [f.kind, f.at])).toEqual([
      ['chunk', 5],
      ['chunk', 5],
      ['chunk', 12],
      ['chunk', 12],
      ['done', 12],
    ])
    expect(seen.client.reply.content).toBe('Hello')
    expect(seen.outcome).toEqual({ kind: 'finished', finishReason: 'stop' })
    expect(seen.recorded.request.url).toBe('http://127.0.0.1:7313/v1/chat/completions')
    expect(seen.recorded.request.body).toEqual({ messages: [{ role: 'user', content: 'hi' }] })
    // A replay sends Mortar's headers again, never the credential or the client's own.
    expect(seen.recorded.request.headers).toEqual({ 'x-mortar-session': 's' })
    expect(seen.recorded.end).toEqual({ at: 20, reason: 'eof' })
  })

  it('reads a refusal: its status and error, no reply, and the body as received even when it is not JSON', () => {
    const seen = inspectCaptured(
      exchange({
        status: 401,
        outcome: 'refused',
        finish_reason: null,
        completion_id: null,
        error: { message: 'Incorrect API key provided.', type: 'authentication_error', param: null, code: 'invalid_api_key' },
        request: { url: '/v1/chat/completions', headers: [], body: '{oops' },
        model_body: null,
        response: { headers: [['content-type', 'application/json']], frames: [], body: '{"error":{"message":"Incorrect API key provided.","type":"authentication_error","param":null,"code":"invalid_api_key"}}' },
      }),
      'http://127.0.0.1:1',
    )
    expect(seen.outcome).toEqual({ kind: 'http_error', status: 401, code: 'invalid_api_key', message: 'Incorrect API key provided.' })
    expect(seen.receivedBody).toBe('{oops')
    expect(seen.recorded.request.body).toEqual({})
    expect(seen.client.reply.content).toBe('')
  })

  it('reads a JSON reply, and the model server side of an upstream exchange', () => {
    const completion = { id: 'chatcmpl-2', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, logprobs: null, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 } }
    const seen = inspectCaptured(
      exchange({
        stream: false,
        response: { headers: [['content-type', 'application/json']], frames: [], body: JSON.stringify(completion) },
        upstream: { replica: 'http://127.0.0.1:9/v1', body: '{"stream":true}', status: 200, headers: [], frames: [{ t_ms: 3, raw: chunk({ reasoning_content: 'hmm' }) }], response_body: null },
      }),
      'http://127.0.0.1:1',
    )
    expect(seen.client.reply.content).toBe('Hi there')
    expect(seen.client.reply.usage?.total_tokens).toBe(5)
    expect(seen.upstream?.frames).toHaveLength(1)
    expect(seen.upstream?.replica).toBe('http://127.0.0.1:9/v1')
  })

  it('reads a completions reply (POST /v1/completions), streamed and as JSON', () => {
    const cmpl = { id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm' }
    const piece = (text: string, finish: string | null = null) => `data: ${JSON.stringify({ ...cmpl, choices: [{ text, index: 0, logprobs: null, finish_reason: finish }] })}\n\n`
    const usage = { prompt_tokens: 4, completion_tokens: 2, total_tokens: 6 }
    const request = { url: '/v1/completions', headers: [], body: '{"prompt":"def f(","stream":true}' }
    const streamed = inspectCaptured(
      exchange({
        endpoint: '/v1/completions',
        request,
        response: {
          headers: [['content-type', 'text/event-stream']],
          frames: [{ t_ms: 4, raw: piece('x') + piece('):') + piece('', 'length') + `data: ${JSON.stringify({ ...cmpl, choices: [], usage })}\n\ndata: [DONE]\n\n` }],
          body: null,
        },
      }),
      'http://127.0.0.1:1',
    )
    expect(streamed.client.reply).toMatchObject({ content: 'x):', finishReason: 'length', usage, sawDone: true })
    const whole = inspectCaptured(
      exchange({
        endpoint: '/v1/completions',
        stream: false,
        request,
        response: { headers: [['content-type', 'application/json']], frames: [], body: JSON.stringify({ ...cmpl, choices: [{ text: 'x):', index: 0, logprobs: null, finish_reason: 'length' }], usage }) },
      }),
      'http://127.0.0.1:1',
    )
    expect(whole.client.reply).toMatchObject({ content: 'x):', finishReason: 'length', usage })
  })

  it('tells an upstream failure before the headers (a status) from one mid-stream (an event)', () => {
    const error = { message: 'connection refused', type: 'upstream_error', param: null, code: 'upstream_unavailable' }
    expect(inspectCaptured(exchange({ status: 502, outcome: 'upstream_error', error }), 'http://x').outcome.kind).toBe('http_error')
    expect(inspectCaptured(exchange({ status: 200, outcome: 'upstream_error', error }), 'http://x').outcome).toEqual({
      kind: 'upstream_error',
      code: 'upstream_unavailable',
      message: 'connection refused',
    })
  })
})

describe('replayedHeaders', () => {
  it('keeps Mortar headers and Idempotency-Key, whatever their case', () => {
    expect(replayedHeaders([['X-Mortar-Optimize', 'on'], ['Idempotency-Key', 'k'], ['Accept', '*/*']])).toEqual({ 'x-mortar-optimize': 'on', 'idempotency-key': 'k' })
  })
})
