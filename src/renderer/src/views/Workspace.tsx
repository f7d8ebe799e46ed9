import { useCallback, useMemo, useState } from 'react'
import type { OpenedRequest } from '../logic/playground/captured-as-chat'
import { formFromRequest } from '../logic/playground/playground-request'
import { AppHeader, type View } from '../components/AppHeader'
import type { GatewayHealth } from '../lib/gateway-health'
import { useExchangeRuns } from '../hooks/use-exchange-runs'
import { usePlaygroundForm } from '../hooks/use-playground-form'
import { useRunRequestIds } from '../hooks/use-run-request-ids'
import type { SettingsState } from '../hooks/use-settings'
import { useTraffic } from '../hooks/use-traffic'
import type { GatewayClient } from '../lib/gateway-client'
import { PlaygroundView } from './PlaygroundView'
import { SettingsView } from './SettingsView'
import { TrafficView } from './TrafficView'

interface WorkspaceProps {
  client: GatewayClient
  health: GatewayHealth
  settings: SettingsState
  onSignOut(): void
}

/** The connected app: the three views, with the state that outlives switching between them. */
export function Workspace({ client, health, settings, onSignOut }: WorkspaceProps) {
  const [view, setView] = useState<View>('playground')
  const formState = usePlaygroundForm()
  const runs = useExchangeRuns(client)
  const traffic = useTraffic(client)
  const localRunIds = useRunRequestIds(runs.runs)
  const running = useMemo(() => traffic.state.rows.filter((row) => row.status === 'running').length, [traffic.state.rows])
  const { select, runs: runList } = runs
  const { replace } = formState

  const openRun = useCallback(
    (runId: string) => {
      select(runId)
      setView('playground')
    },
    [select],
  )
  const openInPlayground = useCallback(
    (runId: string) => {
      const run = runList.find((r) => r.id === runId)
      if (run !== undefined) replace(formFromRequest(run.exchange.request.body, run.exchange.request.headers))
      setView('playground')
    },
    [runList, replace],
  )
  // A captured request, from any client, becomes an editable playground request (in chat, converted if need be).
  const openCaptured = useCallback(
    (request: OpenedRequest) => {
      replace(formFromRequest(request.body, request.headers), request.note)
      setView('playground')
    },
    [replace],
  )

  return (
    <>
      <AppHeader health={health} view={view} onView={setView} showNav running={running} />
      <div className="workspace">
        {view === 'playground' ? <PlaygroundView client={client} formState={formState} runs={runs} /> : null}
        {view === 'traffic' ? (
          <TrafficView
            client={client}
            traffic={traffic}
            localRunIds={localRunIds}
            onOpenRun={openRun}
            onOpenInPlayground={openInPlayground}
            onOpenCaptured={openCaptured}
          />
        ) : null}
        {view === 'settings' ? <SettingsView client={client} settings={settings} onSignOut={onSignOut} /> : null}
      </div>
    </>
  )
}
