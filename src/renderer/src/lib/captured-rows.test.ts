import { describe, expect, it } from 'vitest'
import { exchangeSummarySchema, type ExchangeSummary } from '../../../shared/api/traffic'
import { applyTrafficEvent, filterParams, matchesFilter, MAX_ROWS, mergePage, mergeSeen, noFilter, valuesSeen } from './captured-rows'

function row(id: string, at: string, patch: Partial<ExchangeSummary> = {}): ExchangeSummary {
  return exchangeSummarySchema.parse({
    id,
    started_at: at,
    method: 'POST',
    endpoint: '/v1/chat/completions',
    status: 200,
    outcome: 'finished',
    finish_reason: 'stop',
    client: { kind: 'key', key_id: 'key_a', key_name: 'cline', key_hint: 'mk_live_…a', label: 'cline' },
    org: 'default',
    request_id: `req_${id}`,
    completion_id: null,
    model: 'm',
    deployment: null,
    replica: null,
    session: 's1',
    stream: true,
    ttft_ms: 1,
    duration_ms: 2,
    usage: null,
    usage_source: null,
    cached_tokens: null,
    error: null,
    truncated: null,
    size_bytes: 1,
    ...patch,
  })
}

const refused = row('r', '2026-12-01T08:00:03Z', { status: 401, outcome: 'refused', client: { kind: 'unknown', key_id: null, key_name: null, key_hint: 'mk_live_…zz', label: 'unknown key' }, session: null })

describe('filters', () => {
  it('writes only the fields that are set, as query parameters', () => {
    expect(filterParams({ ...noFilter, status: '4xx', q: ' weather ' })).toEqual({ status: '4xx', q: 'weather' })
  })

  it('sends a time range as ISO instants, read as local time, and judges live rows by it', () => {
    const since = '2026-12-01T08:00:02'
    expect(filterParams({ ...noFilter, since, until: 'not a time' })).toEqual({ since: new Date(since).toISOString() })
    const at = (local: string) => row(local, new Date(local).toISOString())
    expect(matchesFilter(at('2026-12-01T08:00:01'), { ...noFilter, since })).toBe(false)
    expect(matchesFilter(at('2026-12-01T08:00:02'), { ...noFilter, since })).toBe(true)
    expect(matchesFilter(at('2026-12-01T08:00:02'), { ...noFilter, until: since })).toBe(false)
  })

  it('judges a row by status class, outcome, model, session, endpoint and client', () => {
    const ok = row('a', '2026-12-01T08:00:01Z')
    expect(matchesFilter(ok, noFilter)).toBe(true)
    expect(matchesFilter(ok, { ...noFilter, status: '4xx' })).toBe(false)
    expect(matchesFilter(refused, { ...noFilter, status: '4xx' })).toBe(true)
    expect(matchesFilter(refused, { ...noFilter, client: 'none' })).toBe(true)
    expect(matchesFilter(ok, { ...noFilter, client: 'none' })).toBe(false)
    expect(matchesFilter(ok, { ...noFilter, client: 'key_a', session: 's1', model: 'm', outcome: 'finished' })).toBe(true)
    expect(matchesFilter(ok, { ...noFilter, endpoint: '/v1/models' })).toBe(false)
  })
})

describe('applyTrafficEvent', () => {
  const a = row('a', '2026-12-01T08:00:01Z', { outcome: 'in_progress', status: null })
  const b = row('b', '2026-12-01T08:00:02Z')

  it('adds started exchanges newest first and replaces them in place when they end', () => {
    let rows = applyTrafficEvent([], { type: 'exchange.started', exchange: a }, noFilter)
    rows = applyTrafficEvent(rows, { type: 'exchange.started', exchange: b }, noFilter)
    expect(rows.map((r) => r.id)).toEqual(['b', 'a'])
    rows = applyTrafficEvent(rows, { type: 'exchange.ended', exchange: { ...a, outcome: 'finished', status: 200 } }, noFilter)
    expect(rows.map((r) => [r.id, r.outcome])).toEqual([
      ['b', 'finished'],
      ['a', 'finished'],
    ])
  })

  it('leaves out what the filters exclude, and adds nothing while a search runs (the search is re-run)', () => {
    expect(applyTrafficEvent([], { type: 'exchange.started', exchange: a }, { ...noFilter, status: '4xx' })).toEqual([])
    expect(applyTrafficEvent([], { type: 'exchange.started', exchange: a }, { ...noFilter, q: 'x' })).toEqual([])
  })

  it('empties the list when the store is cleared', () => {
    expect(applyTrafficEvent([a, b], { type: 'exchanges.cleared' }, noFilter)).toEqual([])
  })
})

describe('mergePage', () => {
  it('keeps the live copy of an exchange over the page’s older one', () => {
    const live = row('a', '2026-12-01T08:00:01Z', { outcome: 'finished' })
    const page = [row('a', '2026-12-01T08:00:01Z', { outcome: 'in_progress' }), row('c', '2026-12-01T07:00:00Z')]
    expect(mergePage([live], page).map((r) => [r.id, r.outcome])).toEqual([
      ['a', 'finished'],
      ['c', 'finished'],
    ])
  })

  it('adds an older page past MAX_ROWS, and live events then keep that many rows', () => {
    const at = (i: number) => new Date(Date.UTC(2026, 11, 1, 8) + i * 1000).toISOString()
    const loaded = Array.from({ length: MAX_ROWS }, (_, i) => row(`n${i}`, at(10_000 - i)))
    const older = Array.from({ length: 200 }, (_, i) => row(`o${i}`, at(5_000 - i)))
    const rows = mergePage(loaded, older)
    expect(rows).toHaveLength(MAX_ROWS + 200)
    expect(rows.at(-1)?.id).toBe('o199')
    const after = applyTrafficEvent(rows, { type: 'exchange.started', exchange: row('new', at(20_000)) }, noFilter)
    expect(after).toHaveLength(MAX_ROWS + 200)
    expect([after[0]?.id, after.at(-1)?.id]).toEqual(['new', 'o198'])
  })
})

describe('valuesSeen', () => {
  it('lists models, sessions, endpoints and clients, with refused credentials as one "no valid key"', () => {
    const seen = valuesSeen([row('a', '2026-12-01T08:00:01Z'), refused])
    expect(seen.sessions).toEqual(['s1'])
    expect(seen.clients).toEqual([
      { id: 'key_a', label: 'cline' },
      { id: 'none', label: 'no valid key' },
    ])
  })

  it('keeps what the menus offered when the rows narrow to one value', () => {
    const before = valuesSeen([row('a', '2026-12-01T08:00:01Z'), row('b', '2026-12-01T08:00:02Z', { session: 's2', endpoint: '/v1/models' })])
    const after = mergeSeen(before, [row('c', '2026-12-01T08:00:03Z', { session: 's3' })])
    expect(after.sessions).toEqual(['s1', 's2', 's3'])
    expect(after.endpoints).toEqual(['/v1/chat/completions', '/v1/models'])
    expect(after.clients).toEqual([{ id: 'key_a', label: 'cline' }])
  })
})
