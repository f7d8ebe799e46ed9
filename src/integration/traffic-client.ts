import { SseDecoder } from '../shared/sse/sse-decoder'
import {
  exchangeListSchema,
  exchangeSchema,
  trafficEventSchema,
  trafficQueryString,
  TrafficPath,
  type Exchange,
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
    async live(): Promise<LiveTraffic> {
      const controller = new AbortController()
      const response = await fetch(`${baseUrl}${TrafficPath.live}`, { headers: { Authorization: `Bearer ${key}` }, signal: controller.signal })
      if (response.status !== 200 || response.body === null) throw new Error(`live: ${response.status}`)
      const reader = response.body.getReader()
      const decoder = new SseDecoder()
      const seen: TrafficEvent[] = []
      const waiters = new Set<() => void>()
      const pump = async () => {
        for (;;) {
          const { value, done } = await reader.read()
          if (done) return
          for (const event of decoder.push(value)) {
            if (event.kind !== 'data') continue
            seen.push(trafficEventSchema.parse(JSON.parse(event.data)))
            for (const wake of waiters) wake()
          }
        }
      }
      void pump().catch(() => undefined)
      return {
        events: seen,
        /** The first event (seen or to come) that matches, or a rejection after `timeoutMs`. */
        next(match: (event: TrafficEvent) => boolean, timeoutMs: number): Promise<TrafficEvent> {
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
              reject(new Error(`no matching traffic event within ${timeoutMs} ms; saw ${seen.map((e) => e.type).join(', ')}`))
            }, timeoutMs)
            waiters.add(check)
            check()
          })
        },
        close: () => controller.abort(),
      }
    },
  }
}

export interface LiveTraffic {
  events: TrafficEvent[]
  next(match: (event: TrafficEvent) => boolean, timeoutMs: number): Promise<TrafficEvent>
  close(): void
}

/** Matches the end of the exchange whose response carried this X-Request-Id. */
export const endOf = (requestId: string) => (event: TrafficEvent) => event.type === 'exchange.ended' && event.exchange.request_id === requestId
