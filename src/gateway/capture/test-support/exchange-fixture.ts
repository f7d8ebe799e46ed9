import type { Exchange } from '../../../shared/api/traffic'
import { fitExchange } from '../truncate-exchange'

let counter = 0

/** An ended exchange as the recorder builds one, sized as the store would see it. */
export function exchangeFixture(overrides: Partial<Exchange> = {}): Exchange {
  counter++
  const base: Exchange = {
    id: `exch_${String(counter).padStart(4, '0')}`,
    started_at: new Date(Date.UTC(2026, 0, 1, 0, 0, counter)).toISOString(),
    method: 'POST',
    endpoint: '/v1/chat/completions',
    status: 200,
    outcome: 'finished',
    finish_reason: 'stop',
    client: { kind: 'key', key_id: 'key_a', key_name: 'a', key_hint: 'mk_live_AAAA…AAAA', label: 'a' },
    org: 'default',
    request_id: `req_${counter}`,
    completion_id: `chatcmpl-${counter}`,
    model: 'm',
    deployment: 'scripted',
    replica: null,
    session: 's',
    stream: true,
    ttft_ms: 1,
    duration_ms: 2,
    usage: null,
    usage_source: null,
    cached_tokens: null,
    error: null,
    truncated: null,
    size_bytes: 0,
    request: { url: '/v1/chat/completions', headers: [['content-type', 'application/json']], body: '{"messages":[]}' },
    model_body: null,
    response: { headers: [], frames: [{ t_ms: 1, raw: 'data: {"x":1}\n\n' }], body: null },
    upstream: null,
    ...overrides,
  }
  return fitExchange(base, Number.MAX_SAFE_INTEGER, { frames: 0, bytes: 0 })
}
