import { healthLabel, healthLevel, type GatewayHealth } from '../lib/gateway-health'
import { Tabs } from './common/Tabs'

export type View = 'playground' | 'traffic' | 'settings'

const VIEWS: ReadonlyArray<{ id: View; label: string }> = [
  { id: 'playground', label: 'Playground' },
  { id: 'traffic', label: 'Traffic' },
  { id: 'settings', label: 'Settings' },
]

interface AppHeaderProps {
  health: GatewayHealth
  view: View
  onView(view: View): void
  showNav: boolean
  running: number
}

export function AppHeader({ health, view, onView, showNav, running }: AppHeaderProps) {
  return (
    <header className="app-header">
      <h1>Mortar</h1>
      {showNav ? <Tabs tabs={VIEWS} active={view} onSelect={onView} testIdPrefix="nav" /> : null}
      <span className="spacer" />
      {showNav && running > 0 ? (
        <span className="chip" data-testid="running-count">
          {running} running
        </span>
      ) : null}
      <span
        className={`health health--${healthLevel(health)}`}
        data-testid="gateway-status"
        data-health={healthLevel(health)}
        title={health.kind === 'unreachable' ? health.reason : undefined}
      >
        {healthLabel(health)}
      </span>
    </header>
  )
}
