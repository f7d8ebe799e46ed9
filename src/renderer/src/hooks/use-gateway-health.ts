import { useEffect, useState } from 'react'
import { gatewayBaseUrl } from '../lib/desktop'

export type GatewayHealth = 'checking' | 'ok' | 'unreachable'

function isHealthy(body: unknown): boolean {
  return typeof body === 'object' && body !== null && 'status' in body && body.status === 'ok'
}

async function checkGatewayHealth(signal: AbortSignal): Promise<GatewayHealth> {
  try {
    const response = await fetch(`${await gatewayBaseUrl()}/health`, { signal })
    if (!response.ok) return 'unreachable'
    return isHealthy(await response.json()) ? 'ok' : 'unreachable'
  } catch {
    return 'unreachable'
  }
}

/** Asks the gateway's /health once when mounted. */
export function useGatewayHealth(): GatewayHealth {
  const [health, setHealth] = useState<GatewayHealth>('checking')

  useEffect(() => {
    const controller = new AbortController()
    void checkGatewayHealth(controller.signal).then((result) => {
      if (!controller.signal.aborted) setHealth(result)
    })
    return () => controller.abort()
  }, [])

  return health
}
