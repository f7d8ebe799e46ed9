import { useCallback, useEffect, useState } from 'react'
import type { ApiKeyObject, CreatedApiKey, CreateKeyRequest } from '../../../shared/api/keys'
import { insufficientRole, type GatewayClient } from '../lib/gateway-client'

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

const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))

/**
 * The organization's API keys, over the gateway's `/v1/keys` with this window's key: the same
 * calls in Electron (the per-launch owner key) and in a browser (the key the tab was opened with).
 */
export function useApiKeys(client: GatewayClient): ApiKeysState {
  const [access, setAccess] = useState<KeyAccess>({ kind: 'loading' })
  const [keys, setKeys] = useState<ApiKeyObject[]>([])
  const [revealed, setRevealed] = useState<CreatedApiKey | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  // What a listing means for the panel: the keys, or that this key may not see them.
  const settle = useCallback((outcome: { keys: ApiKeyObject[] } | { error: unknown }) => {
    if ('keys' in outcome) {
      setKeys(outcome.keys)
      setAccess({ kind: 'allowed' })
      return
    }
    const forbidden = insufficientRole(outcome.error)
    if (forbidden === null) {
      setError(messageOf(outcome.error))
      return
    }
    setKeys([])
    setAccess({ kind: 'forbidden', message: forbidden })
  }, [])

  const refresh = useCallback(
    () => client.listKeys().then((listed) => settle({ keys: listed }), (e: unknown) => settle({ error: e })),
    [client, settle],
  )

  useEffect(() => {
    const controller = new AbortController()
    client.listKeys(controller.signal).then(
      (listed) => {
        if (!controller.signal.aborted) settle({ keys: listed })
      },
      (e: unknown) => {
        if (!controller.signal.aborted) settle({ error: e })
      },
    )
    return () => controller.abort()
  }, [client, settle])

  const run = useCallback(
    async (action: () => Promise<CreatedApiKey | ApiKeyObject>) => {
      setBusy(true)
      setError(null)
      try {
        const result = await action()
        if ('key' in result) setRevealed(result)
        await refresh()
      } catch (e) {
        setError(messageOf(e))
      } finally {
        setBusy(false)
      }
    },
    [refresh],
  )

  return {
    access,
    keys,
    revealed,
    error,
    busy,
    create: (request) => run(() => client.createKey(request)),
    revoke: (id) => run(() => client.revokeKey(id)),
    rotate: (id) => run(() => client.rotateKey(id)),
    dismissRevealed: () => setRevealed(null),
  }
}
