import { useCallback, useEffect, useMemo, useState } from 'react'
import type { DesktopSettings, GatewaySettings } from '../../../shared/desktop-settings'
import { settingsStore } from '../lib/desktop'
import { errorMessage } from '../logic/error-message'

export interface SettingsState {
  settings: DesktopSettings | null
  scope: 'desktop' | 'browser'
  error: string | null
  save(next: DesktopSettings): Promise<boolean>
  /** Saved gateway settings differ from those the gateway started with: a restart applies them. */
  needsRestart: boolean
}

/** Every gateway setting but capture, which the running gateway takes at once (PUT /v1/traffic/mode), needs a restart. */
const sameGateway = (a: GatewaySettings, b: GatewaySettings) => JSON.stringify({ ...a, capture: null }) === JSON.stringify({ ...b, capture: null })

export function useSettings(): SettingsState {
  const store = useMemo(() => settingsStore(), [])
  const [settings, setSettings] = useState<DesktopSettings | null>(null)
  const [atLaunch, setAtLaunch] = useState<GatewaySettings | null>(null)
  const [error, setError] = useState<string | null>(null)

  useEffect(() => {
    let cancelled = false
    store
      .load()
      .then((loaded) => {
        if (cancelled) return
        setSettings(loaded)
        setAtLaunch(loaded.gateway)
      })
      .catch((e: unknown) => {
        if (!cancelled) setError(errorMessage(e))
      })
    return () => {
      cancelled = true
    }
  }, [store])

  const save = useCallback(
    async (next: DesktopSettings) => {
      try {
        setSettings(await store.save(next))
        setError(null)
        return true
      } catch (e) {
        setError(errorMessage(e))
        return false
      }
    },
    [store],
  )

  const needsRestart = store.scope === 'desktop' && settings !== null && atLaunch !== null && !sameGateway(settings.gateway, atLaunch)
  return { settings, scope: store.scope, error, save, needsRestart }
}
