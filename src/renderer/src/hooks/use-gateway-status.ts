import { useCallback } from 'react'
import type { StatusResponse } from '../../../shared/api/health'
import type { GatewayClient } from '../lib/gateway-client'
import { useLoad, type Loaded } from './use-load'

/** Settings refreshes the model servers' detail this often while it is open. */
const STATUS_POLL_MS = 5_000

export type GatewayStatusState = Loaded<StatusResponse>

/** GET /v1/status while mounted, every STATUS_POLL_MS, one request at a time. */
export function useGatewayStatus(client: GatewayClient): GatewayStatusState {
  return useLoad(
    useCallback((signal: AbortSignal) => client.status(signal), [client]),
    [client],
    { pollMs: STATUS_POLL_MS },
  )
}
