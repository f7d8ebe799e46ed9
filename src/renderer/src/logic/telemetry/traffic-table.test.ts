import { DEFAULT_MODEL_ID } from '../../../../shared/api/chat-request'
import { describe, expect, it } from 'vitest'
import type { RequestEndedEvent, TelemetryEvent } from '../../../../shared/api/telemetry'
import { applyTelemetryEvent, emptyTraffic, modelsSeen, noTrafficFilter, parseTelemetryEvent, visibleRows, type TrafficState } from './traffic-table'

const base = { org: 'default', session: 'sess_a', model: DEFAULT_MODEL_ID, at: '2025-01-01T00:00:00.000Z' }
const accepted = (id: string, extra: Partial<TelemetryEvent> = {}): TelemetryEvent =>
  ({ type: 'request.accepted', id, ...base, key_name: 'continue-laptop', deployment: 'scripted', stream: true, optimizer: 'ruleset=2; mode=off', tool_selector: null, dedupe: null, ...extra }) as TelemetryEvent
const ended = (id: string, type: RequestEndedEvent['type'] = 'request.finished'): TelemetryEvent => ({
  type,
  id,
  ...base,
  deployment: 'scripted',
  upstream: null,
  finish_reason: type === 'request.finished' ? 'stop' : null,
  finish_reason_derived: false,
  error_code: null,
  usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  usage_source: 'estimate',
  duration_ms: 120.5,
  cost_usd: null,
})

const fold = (events: TelemetryEvent[], limit?: number): TrafficState =>
  events.reduce((state, event) => applyTelemetryEvent(state, event, limit), emptyTraffic)

describe('applyTelemetryEvent', () => {
  it('makes one row per request and fills it in as its events come', () => {
    const state = fold([
      accepted('a'),
      { type: 'request.first_token', id: 'a', ...base, ttft_ms: 12.3 },
      ended('a'),
      { type: 'cache', id: 'a', ...base, cached_tokens: 4, prompt_tokens: 10 },
    ])
    expect(state.rows).toHaveLength(1)
    expect(state.rows[0]).toMatchObject({
      id: 'a',
      status: 'finished',
      ttftMs: 12.3,
      durationMs: 120.5,
      usage: { total_tokens: 15 },
      usageSource: 'estimate',
      finishReason: 'stop',
      cachedTokens: 4,
      deployment: 'scripted',
      stream: true,
      keyName: 'continue-laptop',
    })
    expect(state.rows[0]?.events).toHaveLength(4)
    expect(state.eventCount).toBe(4)
  })

  it("says when the finish reason was derived, not the model server's", () => {
    const derived = { ...ended('a'), finish_reason: 'tool_calls', finish_reason_derived: true } as TelemetryEvent
    const state = fold([accepted('a'), derived, accepted('b'), ended('b')])
    expect(state.rows.map((r) => [r.finishReason, r.finishReasonDerived])).toEqual([
      ['tool_calls', true],
      ['stop', false],
    ])
  })

  it('marks how a request ended', () => {
    const state = fold([accepted('a'), accepted('b'), ended('a', 'request.stopped'), ended('b', 'request.client_disconnected')])
    expect(state.rows.map((r) => r.status)).toEqual(['stopped', 'client_disconnected'])
  })

  it('gives a request that shared a generation its own row, which follows the leader', () => {
    const state = fold([accepted('a', { dedupe: 'leader', stream: false }), accepted('a', { dedupe: 'shared', stream: false }), ended('a')])
    expect(state.rows.map((r) => [r.dedupe, r.status])).toEqual([
      ['leader', 'finished'],
      ['shared', 'finished'],
    ])
    expect(new Set(state.rows.map((r) => r.key)).size).toBe(2)
  })

  it('still shows a request accepted before the subscription (its client unknown)', () => {
    const state = fold([ended('old')])
    expect(state.rows[0]).toMatchObject({ id: 'old', status: 'finished', deployment: 'scripted', keyName: null })
  })

  it('names the client by the key that sent it, each deduplicated request by its own', () => {
    const state = fold([
      accepted('a', { key_name: 'cline', dedupe: 'leader' }),
      accepted('a', { key_name: 'zed', dedupe: 'shared' }),
      accepted('b', { key_name: undefined } as Partial<TelemetryEvent>),
      ended('a'),
    ])
    expect(state.rows.map((r) => r.keyName)).toEqual(['cline', 'zed', null])
  })

  it('keeps only the newest rows', () => {
    const state = fold([accepted('a'), accepted('b'), accepted('c')], 2)
    expect(state.rows.map((r) => r.id)).toEqual(['b', 'c'])
  })

  it('does not change the state it was given', () => {
    const before = fold([accepted('a')])
    const snapshot = JSON.stringify(before)
    applyTelemetryEvent(before, ended('a'))
    expect(JSON.stringify(before)).toBe(snapshot)
  })
})

describe('visibleRows', () => {
  const state = fold([accepted('a'), accepted('b', { session: 'Other-Agent', model: 'm2' }), ended('a')])

  it('lists newest first and filters by session, model and running', () => {
    expect(visibleRows(state.rows, noTrafficFilter).map((r) => r.id)).toEqual(['b', 'a'])
    expect(visibleRows(state.rows, { ...noTrafficFilter, session: 'other' }).map((r) => r.id)).toEqual(['b'])
    expect(visibleRows(state.rows, { ...noTrafficFilter, model: DEFAULT_MODEL_ID }).map((r) => r.id)).toEqual(['a'])
    expect(visibleRows(state.rows, { ...noTrafficFilter, runningOnly: true }).map((r) => r.id)).toEqual(['b'])
    expect(modelsSeen(state.rows)).toEqual([DEFAULT_MODEL_ID, 'm2'])
  })
})

describe('parseTelemetryEvent', () => {
  it('reads events and ignores anything else', () => {
    expect(parseTelemetryEvent(JSON.stringify(accepted('a')))?.type).toBe('request.accepted')
    expect(parseTelemetryEvent('nope')).toBeUndefined()
    expect(parseTelemetryEvent('{"type":1}')).toBeUndefined()
  })

  it('refuses an event that does not match its schema, rather than trusting its type', () => {
    expect(parseTelemetryEvent(JSON.stringify(ended('a')))?.type).toBe('request.finished')
    expect(parseTelemetryEvent('{"type":"request.accepted","id":"a"}')).toBeUndefined()
    expect(parseTelemetryEvent(JSON.stringify({ ...ended('a'), usage: null }))).toBeUndefined()
    expect(parseTelemetryEvent(JSON.stringify({ ...accepted('a'), stream: 'yes' }))).toBeUndefined()
  })
})
