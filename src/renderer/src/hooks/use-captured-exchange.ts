import { useEffect, useState } from 'react'
import type { Exchange, ExchangeSummary } from '../../../shared/api/traffic'
import type { GatewayClient } from '../lib/gateway-client'

export type CapturedExchangeState = { kind: 'loading' } | { kind: 'ready'; exchange: Exchange } | { kind: 'failed'; message: string }

/**
 * One exchange, whole, from GET /v1/traffic/exchanges/{id}: read again when its summary changes
 * (a running exchange that ends brings its frames and its outcome).
 */
export function useCapturedExchange(client: GatewayClient, summary: ExchangeSummary): CapturedExchangeState {
  const [state, setState] = useState<CapturedExchangeState>({ kind: 'loading' })
  const { id, outcome, duration_ms: duration } = summary
  useEffect(() => {
    const controller = new AbortController()
    client.getExchange(id, controller.signal).then(
      (exchange) => setState({ kind: 'ready', exchange }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) })
      },
    )
    return () => controller.abort()
  }, [client, id, outcome, duration])
  // A different exchange starts from "loading", not from the previous one's view.
  const current = state.kind === 'ready' && state.exchange.id !== id ? { kind: 'loading' as const } : state
  return current
}
