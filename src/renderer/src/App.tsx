import { AppHeader } from './components/AppHeader'
import { KeyPrompt } from './components/KeyPrompt'
import { useConnection } from './hooks/use-connection'
import { useGatewayHealth } from './hooks/use-gateway-health'
import { useSettings } from './hooks/use-settings'
import { useTheme } from './hooks/use-theme'
import { Workspace } from './views/Workspace'

export function App() {
  const health = useGatewayHealth()
  const { state, submitKey, signOut, retry } = useConnection()
  const settings = useSettings()
  useTheme(settings.settings?.ui.theme)

  if (state.kind === 'ready') {
    return (
      <div className="app">
        <Workspace client={state.client} health={health} settings={settings} onSignOut={signOut} />
      </div>
    )
  }
  return (
    <div className="app">
      <AppHeader health={health} view="playground" onView={() => {}} showNav={false} running={0} />
      <main className="centered">
        {state.kind === 'connecting' ? (
          <p className="muted" data-testid="connecting">
            Connecting…
          </p>
        ) : null}
        {state.kind === 'needs-key' ? <KeyPrompt problem={state.problem} onSubmit={submitKey} /> : null}
        {state.kind === 'unavailable' ? (
          <div className="key-prompt" data-testid="unavailable">
            <h2>The gateway cannot be reached</h2>
            <p>{state.message}</p>
            <button type="button" className="button" onClick={retry}>
              Try again
            </button>
          </div>
        ) : null}
      </main>
    </div>
  )
}
