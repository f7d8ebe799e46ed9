import { useCallback, useMemo } from 'react'
import type { CaptureMode } from '../../../shared/api/traffic'
import { DEFAULT_MODEL_ID } from '../../../shared/api/chat-request'
import type { SettingsState } from '../hooks/use-settings'
import { useApiKeys } from '../hooks/use-api-keys'
import { useCaptureMode } from '../hooks/use-capture-mode'
import { useGatewayStatus } from '../hooks/use-gateway-status'
import { useModels } from '../hooks/use-models'
import { desktopControls } from '../lib/desktop'
import type { GatewayClient } from '../lib/gateway-client'
import { ApiKeysPanel } from '../components/settings/ApiKeysPanel'
import { AppearanceSettings } from '../components/settings/AppearanceSettings'
import { CaptureSettings } from '../components/settings/CaptureSettings'
import { GatewaySettingsForm } from '../components/settings/GatewaySettingsForm'
import { GatewayStatusPanel } from '../components/settings/GatewayStatusPanel'
import { SetupSnippets } from '../components/settings/SetupSnippets'

interface SettingsViewProps {
  client: GatewayClient
  settings: SettingsState
  onSignOut(): void
}

export function SettingsView({ client, settings, onSignOut }: SettingsViewProps) {
  const keys = useApiKeys(client)
  const models = useModels(client)
  const status = useGatewayStatus(client)
  const controls = useMemo(() => desktopControls(), [])
  const current = settings.settings
  const { save } = settings
  // The desktop app keeps the mode the gateway now runs with for its next start.
  const keepCapture = useCallback(
    (capture: CaptureMode) => {
      if (settings.scope === 'desktop' && current !== null && current.gateway.capture !== capture) void save({ ...current, gateway: { ...current.gateway, capture } })
    },
    [settings.scope, current, save],
  )
  const capture = useCaptureMode(client, keepCapture)
  const model = models.kind === 'ready' ? (models.value.find((m) => m.deployment !== null) ?? models.value[0]) : undefined
  const baseUrl = client.url('/v1')

  return (
    <div className="settings" data-testid="settings-view">
      {settings.error !== null ? (
        <p className="field__problem" role="alert">
          {settings.error}
        </p>
      ) : null}
      {current !== null ? (
        <AppearanceSettings ui={current.ui} desktop={settings.scope === 'desktop'} onChange={(ui) => void settings.save({ ...current, ui })} />
      ) : null}
      {current !== null && controls !== null ? (
        <GatewaySettingsForm
          saved={current.gateway}
          runningUrl={baseUrl}
          needsRestart={settings.needsRestart}
          // Capture is not the form's: it changes at once, below.
          onSave={(gateway) => settings.save({ ...current, gateway: { ...gateway, capture: current.gateway.capture } })}
          onRestart={() => void controls.relaunch()}
          testModelServer={controls.testModelServer}
        />
      ) : null}
      <CaptureSettings state={capture.state} desktop={settings.scope === 'desktop'} onChange={capture.change} />
      <GatewayStatusPanel state={status} />
      <ApiKeysPanel state={keys} />
      {settings.scope === 'browser' ? (
        <section className="settings__section" data-testid="settings-browser-key">
          <h3>This tab&apos;s key</h3>
          <p className="muted">
            This tab uses the key it was opened with, kept in session storage until the tab closes. Forgetting it here does
            not revoke it.
          </p>
          <button type="button" className="button" onClick={onSignOut} data-testid="forget-key">
            Forget this key
          </button>
        </section>
      ) : null}
      <SetupSnippets target={{ baseUrl, model: model?.id ?? DEFAULT_MODEL_ID, contextWindow: model?.context_window ?? 4096 }} keys={keys} />
    </div>
  )
}
