import { useEffect, useState } from 'react'
import type { StatusResponse } from '../../../shared/api/health'
import type { GatewayClient } from '../lib/gateway-client'

/** Settings refreshes the model servers' detail this often while it is open. */
const STATUS_POLL_MS = 5_000

export type GatewayStatusState = { kind: 'loading' } | { kind: 'ready'; status: StatusResponse } | { kind: 'error'; message: string }

/** GET /v1/status while mounted, every STATUS_POLL_MS, one request at a time. */
export function useGatewayStatus(client: GatewayClient): GatewayStatusState {
  const [state, setState] = useState<GatewayStatusState>({ kind: 'loading' })
  useEffect(() => {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = async () => {
      try {
        const status = await client.status(controller.signal)
        if (!controller.signal.aborted) setState({ kind: 'ready', status })
      } catch (error) {
        if (!controller.signal.aborted) setState({ kind: 'error', message: error instanceof Error ? error.message : String(error) })
      }
      if (!controller.signal.aborted) timer = setTimeout(() => void poll(), STATUS_POLL_MS)
    }
    void poll()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [client])
  return state
}
