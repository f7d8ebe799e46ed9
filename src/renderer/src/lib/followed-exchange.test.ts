import { describe, expect, it } from 'vitest'
import { exchangeSchema, type Exchange } from '../../../shared/api/traffic'
import { applyFollowEvent } from './followed-exchange'

const frame = (raw: string, t_ms: number) => ({ raw, t_ms })

function running(patch: Partial<Exchange> = {}): Exchange {
  return exchangeSchema.parse({
    id: 'exch_1',
    started_at: '2026-12-01T08:00:00Z',
    method: 'POST',
    endpoint: '/v1/chat/completions',
    status: 200,
    outcome: 'in_progress',
    finish_reason: null,
    client: { kind: 'key', key_id: 'key_a', key_name: 'cline', key_hint: null, label: 'cline' },
    org: 'default',
    request_id: 'req_1',
    completion_id: 'chatcmpl-1',
    model: 'm',
    deployment: null,
    replica: 'gpu-1:8000',
    session: 's1',
    stream: true,
    ttft_ms: null,
    duration_ms: null,
    usage: null,
    usage_source: null,
    cached_tokens: null,
    error: null,
    truncated: null,
    size_bytes: 0,
    request: { url: '/v1/chat/completions', headers: [], body: '{}' },
    model_body: null,
    response: { headers: [], frames: [frame('data: a\n\n', 1)], body: null },
    upstream: { replica: 'gpu-1:8000', body: '{}', status: 200, headers: [], frames: [frame('data: A\n\n', 1)], response_body: null },
    ...patch,
  })
}

describe('following an exchange', () => {
  it('appends the frames of both sides, in order, to the snapshot', () => {
    let exchange = applyFollowEvent(undefined, { type: 'exchange.snapshot', exchange: running() })
    exchange = applyFollowEvent(exchange, { type: 'exchange.frames', frames: [frame('data: b\n\n', 2)], upstream_frames: [] })
    exchange = applyFollowEvent(exchange, { type: 'exchange.frames', frames: [frame('data: c\n\n', 3)], upstream_frames: [frame('data: B\n\n', 2)] })
    expect(exchange?.response.frames.map((f) => f.raw)).toEqual(['data: a\n\n', 'data: b\n\n', 'data: c\n\n'])
    expect(exchange?.upstream?.frames.map((f) => f.raw)).toEqual(['data: A\n\n', 'data: B\n\n'])
    expect(exchange?.outcome).toBe('in_progress')
  })

  it('a new snapshot or the end replaces everything', () => {
    const first = applyFollowEvent(undefined, { type: 'exchange.snapshot', exchange: running() })
    const grown = applyFollowEvent(first, { type: 'exchange.frames', frames: [frame('data: b\n\n', 2)], upstream_frames: [] })
    const final = running({ outcome: 'finished', duration_ms: 9, response: { headers: [], frames: [frame('data: only\n\n', 1)], body: null } })
    expect(applyFollowEvent(grown, { type: 'exchange.ended', exchange: final })).toBe(final)
  })

  it('frames before any snapshot have nowhere to go', () => {
    expect(applyFollowEvent(undefined, { type: 'exchange.frames', frames: [frame('data: x\n\n', 1)], upstream_frames: [] })).toBeUndefined()
  })

  it('a side without new frames keeps its array', () => {
    const first = applyFollowEvent(undefined, { type: 'exchange.snapshot', exchange: running() })
    const next = applyFollowEvent(first, { type: 'exchange.frames', frames: [frame('data: b\n\n', 2)], upstream_frames: [] })
    expect(next?.upstream).toBe(first?.upstream)
  })
})
