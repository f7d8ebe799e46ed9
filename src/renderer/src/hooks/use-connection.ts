import { useCallback, useEffect, useMemo, useState } from 'react'
import { forgetKey, rememberKey, resolveConnection, type Connection } from '../lib/desktop'
import { GatewayClient, GatewayHttpError } from '../lib/gateway-client'

export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'ready'; connection: Connection; client: GatewayClient }
  | { kind: 'needs-key'; problem: string | null }
  | { kind: 'unavailable'; message: string }

/**
 * Finds the gateway and a key (lib/desktop.ts decides how), then proves the key with
 * GET /v1/models. A refused key is forgotten and the prompt asks for another.
 */
export function useConnection(): {
  state: ConnectionState
  submitKey(key: string): void
  signOut(): void
  retry(): void
} {
  const [state, setState] = useState<ConnectionState>({ kind: 'connecting' })
  const [attempt, setAttempt] = useState(0)

  useEffect(() => {
    let cancelled = false
    const controller = new AbortController()
    const set = (next: ConnectionState) => {
      if (!cancelled) setState(next)
    }
    void (async () => {
      try {
        const source = await resolveConnection()
        if (source.kind === 'needs-key') return set({ kind: 'needs-key', problem: null })
        if (source.kind === 'unavailable') return set({ kind: 'unavailable', message: source.message })
        const client = new GatewayClient(source.connection)
        try {
          await client.listModels(controller.signal)
          set({ kind: 'ready', connection: source.connection, client })
        } catch (error) {
          if (error instanceof GatewayHttpError && error.status === 401 && source.origin !== 'desktop') {
            forgetKey()
            set({ kind: 'needs-key', problem: `The gateway refused that key: ${error.message}` })
          } else if (!controller.signal.aborted) {
            set({ kind: 'unavailable', message: error instanceof Error ? error.message : String(error) })
          }
        }
      } catch (error) {
        set({ kind: 'unavailable', message: error instanceof Error ? error.message : String(error) })
      }
    })()
    return () => {
      cancelled = true
      controller.abort()
    }
  }, [attempt])

  const submitKey = useCallback((key: string) => {
    rememberKey(key)
    setState({ kind: 'connecting' })
    setAttempt((n) => n + 1)
  }, [])
  const signOut = useCallback(() => {
    forgetKey()
    setState({ kind: 'needs-key', problem: null })
  }, [])
  const retry = useCallback(() => {
    setState({ kind: 'connecting' })
    setAttempt((n) => n + 1)
  }, [])

  return useMemo(() => ({ state, submitKey, signOut, retry }), [state, submitKey, signOut, retry])
}
