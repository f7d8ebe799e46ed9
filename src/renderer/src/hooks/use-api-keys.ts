import { useCallback, useEffect, useMemo, useState } from 'react'
import type { ApiKeySummary, CreateApiKeyRequest, CreatedApiKey } from '../../../shared/ipc'
import { keyManagement } from '../lib/desktop'

export interface ApiKeysState {
  /** False in a browser: the panel is hidden. */
  available: boolean
  keys: ApiKeySummary[]
  /** The key just created or rotated: shown once, until dismissed. */
  revealed: CreatedApiKey | null
  error: string | null
  busy: boolean
  create(request: CreateApiKeyRequest): Promise<void>
  revoke(id: string): Promise<void>
  rotate(id: string): Promise<void>
  dismissRevealed(): void
}

export function useApiKeys(): ApiKeysState {
  const manager = useMemo(() => keyManagement(), [])
  const [keys, setKeys] = useState<ApiKeySummary[]>([])
  const [revealed, setRevealed] = useState<CreatedApiKey | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)

  const refresh = useCallback(async () => {
    if (manager === null) return
    setKeys(await manager.list())
  }, [manager])

  useEffect(() => {
    if (manager === null) return
    let cancelled = false
    manager.list().then(
      (listed) => {
        if (!cancelled) setKeys(listed)
      },
      (e: unknown) => {
        if (!cancelled) setError(e instanceof Error ? e.message : String(e))
      },
    )
    return () => {
      cancelled = true
    }
  }, [manager])

  const run = useCallback(
    async (action: () => Promise<CreatedApiKey | ApiKeySummary>) => {
      setBusy(true)
      setError(null)
      try {
        const result = await action()
        if ('key' in result) setRevealed(result)
        await refresh()
      } catch (e) {
        setError(e instanceof Error ? e.message : String(e))
      } finally {
        setBusy(false)
      }
    },
    [refresh],
  )

  return {
    available: manager !== null,
    keys,
    revealed,
    error,
    busy,
    create: (request) => run(() => manager!.create(request)),
    revoke: (id) => run(() => manager!.revoke(id)),
    rotate: (id) => run(() => manager!.rotate(id)),
    dismissRevealed: () => setRevealed(null),
  }
}
