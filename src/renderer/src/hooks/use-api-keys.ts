import { useCallback, useState } from 'react'
import type { ApiKeyObject, CreatedApiKey, CreateKeyRequest } from '../../../shared/api/keys'
import { errorMessage } from '../logic/error-message'
import { insufficientRole, type GatewayClient } from '../lib/gateway-client'
import { useLoad } from './use-load'

/**
 * Whether this window's key may manage keys. `/v1/keys` answers owners and admins; anyone else
 * gets 403 `insufficient_role`, and the panel then says so instead of offering what would fail.
 */
export type KeyAccess = { kind: 'loading' } | { kind: 'allowed' } | { kind: 'forbidden'; message: string }

export interface ApiKeysState {
  access: KeyAccess
  keys: ApiKeyObject[]
  /** The key just created or rotated: shown once, until dismissed. */
  revealed: CreatedApiKey | null
  error: string | null
  busy: boolean
  create(request: CreateKeyRequest): Promise<void>
  revoke(id: string): Promise<void>
  rotate(id: string): Promise<void>
  dismissRevealed(): void
}

const NO_KEYS: ApiKeyObject[] = []

/**
 * The organization's API keys, over the gateway's `/v1/keys` with this window's key: the same
 * calls in Electron (the per-launch owner key) and in a browser (the key the tab was opened with).
 */
export function useApiKeys(client: GatewayClient): ApiKeysState {
  const [revealed, setRevealed] = useState<CreatedApiKey | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  /** Bumped after each change, so the list is read again. */
  const [version, setVersion] = useState(0)
  const listing = useLoad(
    useCallback((signal: AbortSignal) => client.listKeys(signal), [client]),
    [client, version],
    { keepWhileReloading: true },
  )

  // What a listing means for the panel: the keys, or that this key may not see them.
  const forbidden = listing.kind === 'failed' ? insufficientRole(listing.error) : null
  const access: KeyAccess =
    listing.kind === 'loading' ? { kind: 'loading' } : forbidden !== null ? { kind: 'forbidden', message: forbidden } : { kind: 'allowed' }
  const keys = listing.kind === 'ready' ? listing.value : NO_KEYS
  const listProblem = listing.kind === 'failed' && forbidden === null ? listing.message : null

  const run = useCallback(async (action: () => Promise<CreatedApiKey | ApiKeyObject>) => {
    setBusy(true)
    setError(null)
    try {
      const result = await action()
      if ('key' in result) setRevealed(result)
      setVersion((n) => n + 1)
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }, [])

  return {
    access,
    keys,
    revealed,
    error: error ?? listProblem,
    busy,
    create: (request) => run(() => client.createKey(request)),
    revoke: (id) => run(() => client.revokeKey(id)),
    rotate: (id) => run(() => client.rotateKey(id)),
    dismissRevealed: () => setRevealed(null),
  }
}
