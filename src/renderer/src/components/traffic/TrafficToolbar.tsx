import type { TrafficFilter } from '../../logic/telemetry/traffic-table'
import type { TrafficConnection } from '../../hooks/use-traffic'

interface TrafficToolbarProps {
  filter: TrafficFilter
  models: string[]
  connection: TrafficConnection
  shown: number
  total: number
  running: number
  onFilter(patch: Partial<TrafficFilter>): void
  onClear(): void
}

function connectionText(connection: TrafficConnection): string {
  switch (connection.kind) {
    case 'connecting':
      return 'Connecting to /v1/telemetry…'
    case 'live':
      return 'Live'
    case 'reconnecting':
      return `Reconnecting in ${Math.round(connection.inMs / 1000)} s (${connection.reason})`
    case 'refused':
      return 'The gateway refused this key'
  }
}

export function TrafficToolbar({ filter, models, connection, shown, total, running, onFilter, onClear }: TrafficToolbarProps) {
  return (
    <div className="toolbar">
      <span className={`live live--${connection.kind}`} data-testid="traffic-connection" data-state={connection.kind}>
        {connectionText(connection)}
      </span>
      <input
        type="search"
        placeholder="Filter by session"
        value={filter.session}
        onChange={(e) => onFilter({ session: e.target.value })}
        data-testid="traffic-filter-session"
        aria-label="Filter by session"
      />
      <select value={filter.model} onChange={(e) => onFilter({ model: e.target.value })} data-testid="traffic-filter-model" aria-label="Filter by model">
        <option value="">All models</option>
        {models.map((model) => (
          <option key={model} value={model}>
            {model}
          </option>
        ))}
      </select>
      <label className="check">
        <input type="checkbox" checked={filter.runningOnly} onChange={(e) => onFilter({ runningOnly: e.target.checked })} data-testid="traffic-filter-running" />
        running only
      </label>
      <span className="spacer" />
      <span className="muted" data-testid="traffic-count">
        {shown} of {total} requests · {running} running
      </span>
      <button type="button" className="button button--small" onClick={onClear}>
        Clear
      </button>
    </div>
  )
}
