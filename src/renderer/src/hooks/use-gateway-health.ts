import { gatewayBaseUrl } from '../lib/desktop'
import { errorMessage } from '../logic/error-message'
import { healthFromResponse, type GatewayHealth } from '../lib/gateway-health'
import { useLoad } from './use-load'

/** How often the header asks `/health`: a stopped gateway shows as unreachable within this. */
export const HEALTH_POLL_MS = 2_000
/** A `/health` that takes longer than this counts as unreachable. */
const HEALTH_TIMEOUT_MS = 3_000
/** One gateway per window: nothing to read it again for. */
const NO_KEY: readonly unknown[] = []

async function checkGatewayHealth(signal: AbortSignal): Promise<GatewayHealth> {
  try {
    const response = await fetch(`${await gatewayBaseUrl()}/health`, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(HEALTH_TIMEOUT_MS)]),
      cache: 'no-store',
    })
    return healthFromResponse(response.status, await response.json().catch(() => undefined))
  } catch (error) {
    return { kind: 'unreachable', reason: errorMessage(error) }
  }
}

/**
 * The gateway's health, kept current: `/health` (no key needed, so it works on the key prompt
 * too) every HEALTH_POLL_MS, one check at a time, for as long as the app is open.
 */
export function useGatewayHealth(): GatewayHealth {
  const health = useLoad(checkGatewayHealth, NO_KEY, { pollMs: HEALTH_POLL_MS })
  if (health.kind === 'loading') return { kind: 'checking' }
  return health.kind === 'ready' ? health.value : { kind: 'unreachable', reason: health.message }
}
