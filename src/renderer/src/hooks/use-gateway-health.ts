import { useEffect, useState } from 'react'
import { gatewayBaseUrl } from '../lib/desktop'
import { healthFromResponse, type GatewayHealth } from '../lib/gateway-health'

/** How often the header asks `/health`: a stopped gateway shows as unreachable within this. */
export const HEALTH_POLL_MS = 2_000
/** A `/health` that takes longer than this counts as unreachable. */
const HEALTH_TIMEOUT_MS = 3_000

async function checkGatewayHealth(signal: AbortSignal): Promise<GatewayHealth> {
  try {
    const response = await fetch(`${await gatewayBaseUrl()}/health`, {
      signal: AbortSignal.any([signal, AbortSignal.timeout(HEALTH_TIMEOUT_MS)]),
      cache: 'no-store',
    })
    return healthFromResponse(response.status, await response.json().catch(() => undefined))
  } catch (error) {
    return { kind: 'unreachable', reason: error instanceof Error ? error.message : String(error) }
  }
}

/**
 * The gateway's health, kept current: `/health` (no key needed, so it works on the key prompt
 * too) every HEALTH_POLL_MS, one check at a time, for as long as the app is open.
 */
export function useGatewayHealth(): GatewayHealth {
  const [health, setHealth] = useState<GatewayHealth>({ kind: 'checking' })

  useEffect(() => {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = async () => {
      const result = await checkGatewayHealth(controller.signal)
      if (controller.signal.aborted) return
      setHealth(result)
      timer = setTimeout(() => void poll(), HEALTH_POLL_MS)
    }
    void poll()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [])

  return health
}
