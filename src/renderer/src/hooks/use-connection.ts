import { useCallback, useEffect, useMemo, useRef, useState } from 'react'
import { forgetKey, onNewUiLink, rememberKey, resolveConnection, type Connection } from '../lib/desktop'
import { GatewayClient, GatewayHttpError } from '../lib/gateway-client'
import { errorMessage } from '../logic/error-message'

export type ConnectionState =
  | { kind: 'connecting' }
  | { kind: 'ready'; connection: Connection; client: GatewayClient }
  | { kind: 'needs-key'; problem: string | null }
  | { kind: 'unavailable'; message: string }

/**
 * Shown on the key prompt when a key that worked is refused later. The gateway's own 401 message
 * speaks to API clients; a tab's user needs to know what happened and where a fresh link is.
 */
export const KEY_NO_LONGER_VALID =
  'This tab\'s key is no longer valid: the gateway refused it. Signing in with a UI link lasts one launch of `mortar serve`, ' +
  'so the gateway has probably restarted (or the key was revoked or expired). Open the `UI:` link `mortar serve` printed ' +
  'when it started (each link signs in once), or paste an API key (create one with `mortar keys create --name NAME`, or in Settings → API keys).'

/**
 * Finds the gateway and a key (lib/desktop.ts decides how), then proves the key with
 * GET /v1/models. A refused key is forgotten and the prompt asks for another — at connection time
 * and whenever any later call gets a 401 (the gateway restarted, the key was revoked). The desktop
 * app's key comes from main, so there a 401 means asking main again.
 */
export function useConnection(): {
  state: ConnectionState
  submitKey(key: string): void
  signOut(): void
  retry(): void
} {
  const [state, setState] = useState<ConnectionState>({ kind: 'connecting' })
  const [attempt, setAttempt] = useState(0)
  // Whether the key being proven was just typed in (refused: a typo) or came with the tab (refused: it died).
  const typedKey = useRef(false)

  useEffect(() => {
    let cancelled = false
    const controller = new AbortController()
    const set = (next: ConnectionState) => {
      if (!cancelled) setState(next)
    }
    void (async () => {
      try {
        const source = await resolveConnection()
        if (source.kind === 'needs-key') return set({ kind: 'needs-key', problem: source.problem ?? null })
        if (source.kind === 'unavailable') return set({ kind: 'unavailable', message: source.message })
        // Until the key is proven, a 401 is the proof's answer (handled below), not a dead key.
        let proven = false
        const client = new GatewayClient(source.connection, () => {
          if (cancelled || !proven) return
          if (source.origin === 'desktop') {
            set({ kind: 'connecting' })
            setAttempt((n) => n + 1)
            return
          }
          forgetKey()
          set({ kind: 'needs-key', problem: KEY_NO_LONGER_VALID })
        })
        try {
          await client.listModels(controller.signal)
          proven = true
          typedKey.current = false
          set({ kind: 'ready', connection: source.connection, client })
        } catch (error) {
          if (error instanceof GatewayHttpError && error.status === 401 && source.origin !== 'desktop') {
            forgetKey()
            set({ kind: 'needs-key', problem: typedKey.current ? 'The gateway refused that key.' : KEY_NO_LONGER_VALID })
            typedKey.current = false
          } else if (!controller.signal.aborted) {
            set({ kind: 'unavailable', message: errorMessage(error) })
          }
        }
      } catch (error) {
        set({ kind: 'unavailable', message: errorMessage(error) })
      }
    })()
    return () => {
      cancelled = true
      controller.abort()
    }
  }, [attempt])

  const submitKey = useCallback((key: string) => {
    rememberKey(key)
    typedKey.current = true
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
  // A fresh UI link pasted into this tab replaces whatever key it had.
  useEffect(() => onNewUiLink(retry), [retry])

  return useMemo(() => ({ state, submitKey, signOut, retry }), [state, submitKey, signOut, retry])
}
