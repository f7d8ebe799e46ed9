import { useEffect, useState } from 'react'
import type { SessionPrefixes } from '../../../shared/api/session-prefixes'
import type { GatewayClient } from '../lib/gateway-client'

export type SessionPrefixesState = { kind: 'loading' } | { kind: 'ready'; prefixes: SessionPrefixes } | { kind: 'failed'; message: string }

/** The session's prompts compared turn by turn; read again when `version` changes (a new exchange of it ended). */
export function useSessionPrefixes(client: GatewayClient, session: string, version: string): SessionPrefixesState {
  const [state, setState] = useState<SessionPrefixesState>({ kind: 'loading' })
  useEffect(() => {
    const controller = new AbortController()
    client.sessionPrefixes(session, controller.signal).then(
      (prefixes) => setState({ kind: 'ready', prefixes }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ kind: 'failed', message: error instanceof Error ? error.message : String(error) })
      },
    )
    return () => controller.abort()
  }, [client, session, version])
  return state.kind === 'ready' && state.prefixes.session !== session ? { kind: 'loading' } : state
}
