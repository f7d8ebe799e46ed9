import { STATUS_CODES } from 'node:http'
import type { Exchange, HeaderPairs } from '../../shared/api/traffic'

interface HarHeader {
  name: string
  value: string
}

/**
 * Exchanges as a HAR 1.2 log (http://www.softwareishard.com/blog/har-12-spec/), for HAR viewers.
 * A stream's response content is its SSE text exactly as sent, frames joined; each frame's time
 * is kept in the entry's `_mortar` extension (custom fields start with `_`, as the spec allows).
 * Timings: `wait` runs to the first byte of the response, `receive` from there to its end.
 */
export function toHar(exchanges: readonly Exchange[], version: string) {
  return {
    log: {
      version: '1.2',
      creator: { name: 'Mortar', version },
      entries: exchanges.map(harEntry),
    },
  }
}

function harEntry(exchange: Exchange) {
  const { request, response } = exchange
  const host = request.headers.find(([name]) => name === 'host')?.[1] ?? 'localhost'
  const url = new URL(request.url, `http://${host}`)
  const isStream = response.frames.length > 0
  const text = isStream ? response.frames.map((frame) => frame.raw).join('') : (response.body ?? '')
  const size = Buffer.byteLength(text)
  const total = Math.max(0, exchange.duration_ms ?? 0)
  const firstByte = response.frames[0]?.t_ms ?? total
  const wait = Math.min(total, Math.max(0, firstByte))
  const requestType = request.headers.find(([name]) => name === 'content-type')?.[1] ?? 'application/json'
  return {
    startedDateTime: exchange.started_at,
    time: total,
    request: {
      method: exchange.method,
      url: url.href,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders(request.headers),
      queryString: [...url.searchParams].map(([name, value]) => ({ name, value })),
      ...(request.body !== '' ? { postData: { mimeType: requestType, text: request.body } } : {}),
      headersSize: -1,
      bodySize: Buffer.byteLength(request.body),
    },
    response: {
      status: exchange.status ?? 0,
      statusText: exchange.status === null ? '' : (STATUS_CODES[exchange.status] ?? ''),
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: harHeaders(response.headers),
      content: {
        size,
        mimeType: response.headers.find(([name]) => name === 'content-type')?.[1] ?? 'application/octet-stream',
        text,
      },
      redirectURL: '',
      headersSize: -1,
      bodySize: exchange.status === null ? -1 : size,
    },
    cache: {},
    timings: { blocked: -1, dns: -1, connect: -1, send: 0, wait, receive: total - wait, ssl: -1 },
    ...(exchange.replica !== null ? { connection: exchange.replica } : {}),
    comment: `${exchange.outcome}${exchange.error !== null ? `: ${exchange.error.message}` : ''}`,
    _mortar: {
      id: exchange.id,
      outcome: exchange.outcome,
      client: exchange.client.label,
      model: exchange.model,
      session: exchange.session,
      ttft_ms: exchange.ttft_ms,
      usage: exchange.usage,
      truncated: exchange.truncated,
      frame_times_ms: response.frames.map((frame) => frame.t_ms),
    },
  }
}

function harHeaders(headers: HeaderPairs): HarHeader[] {
  return headers.map(([name, value]) => ({ name, value }))
}
