import { useEffect, useState } from 'react'
import { exchangeFollowEventSchema, type Exchange, type ExchangeSummary } from '../../../shared/api/traffic'
import { SseDecoder } from '../../../shared/sse/sse-decoder'
import { applyFollowEvent } from '../lib/followed-exchange'
import type { GatewayClient } from '../lib/gateway-client'
import { errorMessage } from '../logic/error-message'

export type CapturedExchangeState = { kind: 'loading' } | { kind: 'ready'; exchange: Exchange } | { kind: 'failed'; message: string }

/**
 * One exchange, whole. A running one is followed (GET /v1/traffic/exchanges/{id}/live): its
 * frames appear as the gateway records them, until it settles to its final record. An ended one
 * is read from GET /v1/traffic/exchanges/{id}, again when its summary changes.
 */
export function useCapturedExchange(client: GatewayClient, summary: ExchangeSummary): CapturedExchangeState {
  const [state, setState] = useState<CapturedExchangeState>({ kind: 'loading' })
  const { id, duration_ms: duration } = summary
  const running = summary.outcome === 'in_progress'
  // Changes when an ended exchange is to be read again (its final summary came).
  const settled = running ? null : duration
  useEffect(() => {
    const controller = new AbortController()
    const failed = (error: unknown) => {
      if (!controller.signal.aborted) setState({ kind: 'failed', message: errorMessage(error) })
    }
    if (!running) {
      client.getExchange(id, controller.signal).then((exchange) => setState({ kind: 'ready', exchange }), failed)
    } else {
      followExchange(client, id, controller.signal, (exchange) => setState({ kind: 'ready', exchange })).catch(failed)
    }
    return () => controller.abort()
  }, [client, id, running, settled])
  // A different exchange starts from "loading", not from the previous one's view.
  return state.kind === 'ready' && state.exchange.id !== id ? { kind: 'loading' } : state
}

/** Reads one exchange's follow stream until it ends, telling each state of the exchange. */
async function followExchange(client: GatewayClient, id: string, signal: AbortSignal, onExchange: (exchange: Exchange) => void): Promise<void> {
  const reader = (await client.openExchangeLive(id, signal)).getReader()
  const decoder = new SseDecoder()
  let exchange: Exchange | undefined
  for (;;) {
    const { done, value } = await reader.read()
    if (done) return
    const before = exchange
    for (const event of decoder.push(value)) {
      if (event.kind !== 'data') continue
      const parsed = exchangeFollowEventSchema.safeParse(JSON.parse(event.data))
      // An event of a newer gateway, or the key's error event: not ours to read here.
      if (parsed.success) exchange = applyFollowEvent(exchange, parsed.data)
    }
    if (exchange !== undefined && exchange !== before) onExchange(exchange)
  }
}
