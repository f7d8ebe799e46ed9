import { SseDecoder } from '../shared/sse/sse-decoder'
import {
  exchangeFollowEventSchema,
  exchangeListSchema,
  exchangeSchema,
  trafficEventSchema,
  trafficQueryString,
  TrafficPath,
  type Exchange,
  type ExchangeFollowEvent,
  type ExchangeList,
  type ExchangeListParams,
  type TrafficEvent,
} from '../shared/api/traffic'

/** The traffic API as a script would use it, every answer checked against the shared schemas. */
export function trafficClient(baseUrl: string, key: string) {
  const get = (path: string) => fetch(`${baseUrl}${path}`, { headers: { Authorization: `Bearer ${key}` } })
  return {
    get,
    async list(params: ExchangeListParams = {}): Promise<ExchangeList> {
      const response = await get(TrafficPath.exchanges + trafficQueryString(params as Record<string, string | number | undefined>))
      if (response.status !== 200) throw new Error(`list: ${response.status} ${await response.text()}`)
      return exchangeListSchema.parse(await response.json())
    },
    async exchange(id: string): Promise<Exchange> {
      const response = await get(TrafficPath.exchange(id))
      if (response.status !== 200) throw new Error(`exchange: ${response.status} ${await response.text()}`)
      return exchangeSchema.parse(await response.json())
    },
    /** Subscribe to the live stream; resolves once the subscription is in place. */
    live(): Promise<LiveTraffic> {
      return subscribe(`${baseUrl}${TrafficPath.live}`, key, (data) => trafficEventSchema.parse(JSON.parse(data)))
    },
    /** Follow one exchange (GET /v1/traffic/exchanges/{id}/live). */
    follow(id: string): Promise<EventStream<ExchangeFollowEvent>> {
      return subscribe(`${baseUrl}${TrafficPath.exchangeLive(id)}`, key, (data) => exchangeFollowEventSchema.parse(JSON.parse(data)))
    },
  }
}

/** An event stream being read: every event so far, a way to wait for one, and whether it has ended. */
export interface EventStream<T> {
  events: T[]
  /** The first event (seen or to come) that matches, or a rejection after `timeoutMs`. */
  next(match: (event: T) => boolean, timeoutMs: number): Promise<T>
  /** Resolves when the server ends the stream. */
  ended: Promise<void>
  close(): void
}

export type LiveTraffic = EventStream<TrafficEvent>

async function subscribe<T extends { type: string }>(url: string, key: string, parse: (data: string) => T): Promise<EventStream<T>> {
  const controller = new AbortController()
  const response = await fetch(url, { headers: { Authorization: `Bearer ${key}` }, signal: controller.signal })
  if (response.status !== 200 || response.body === null) throw new Error(`${url}: ${response.status} ${await response.text()}`)
  const reader = response.body.getReader()
  const decoder = new SseDecoder()
  const seen: T[] = []
  const waiters = new Set<() => void>()
  const pump = async () => {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      for (const event of decoder.push(value)) {
        if (event.kind !== 'data') continue
        seen.push(parse(event.data))
        for (const wake of waiters) wake()
      }
    }
  }
  const ended = pump().catch(() => undefined)
  return {
    events: seen,
    next(match: (event: T) => boolean, timeoutMs: number): Promise<T> {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = seen.find(match)
          if (found === undefined) return
          waiters.delete(check)
          clearTimeout(timer)
          resolve(found)
        }
        const timer = setTimeout(() => {
          waiters.delete(check)
          reject(new Error(`no matching event within ${timeoutMs} ms; saw ${seen.map((e) => e.type).join(', ')}`))
        }, timeoutMs)
        waiters.add(check)
        check()
      })
    },
    ended,
    close: () => controller.abort(),
  }
}

/** Matches the end of the exchange whose response carried this X-Request-Id. */
export const endOf = (requestId: string) => (event: TrafficEvent) => event.type === 'exchange.ended' && event.exchange.request_id === requestId
