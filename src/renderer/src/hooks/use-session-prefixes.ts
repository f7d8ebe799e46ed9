import { useCallback } from 'react'
import type { SessionPrefixes } from '../../../shared/api/session-prefixes'
import type { GatewayClient } from '../lib/gateway-client'
import { useLoad, type Loaded } from './use-load'

export type SessionPrefixesState = Loaded<SessionPrefixes>

/** The session's prompts compared turn by turn; read again when `version` changes (a new exchange of it ended). */
export function useSessionPrefixes(client: GatewayClient, session: string, version: string): SessionPrefixesState {
  return useLoad(
    useCallback((signal: AbortSignal) => client.sessionPrefixes(session, signal), [client, session]),
    [client, session, version],
  )
}
