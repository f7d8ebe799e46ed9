import { formatClock, formatCost, formatMs } from '../../lib/format'
import { fixedColumn, growingColumn } from '../../lib/grid-columns'
import type { TrafficRow } from '../../logic/telemetry/traffic-table'
import { SessionCell, sessionColumn } from './SessionCell'
import { TokensCell } from './TokensCell'
import type { TrafficColumn, TrafficRowFacts } from './TrafficTable'

/** Why a cost is "—": the gateway prices only models that have a price in config.json. */
export const NO_PRICE = 'No cost: this model has no price in config.json (models[].price, docs/configuration.md)'

/**
 * The telemetry stream's columns (capture off: events, no bodies). `localIds` are the completion
 * IDs this window sent, tagged "this window". Stop follows Time and Status. Model fits a whole
 * catalog id and Session an id Mortar made up; the least widths add up to less than a 1280 px
 * window, so all of that is whole there.
 */
export function telemetryColumns(localIds: ReadonlySet<string>): readonly TrafficColumn<TrafficRow>[] {
  return [
    { ...fixedColumn('Time', 84), cell: (row) => <span>{formatClock(row.at)}</span> },
    {
      ...fixedColumn('Status', 120),
      cell: (row) => (
        <span className={`status status--${row.status}`} data-testid="traffic-status">
          {row.status}
        </span>
      ),
    },
    {
      ...growingColumn('Client', 80, 1),
      cell: (row) => (
        <span
          className="traffic__client"
          data-testid="traffic-client"
          data-local={localIds.has(row.id)}
          title={`${row.keyName === null ? 'Accepted before this view subscribed: its key is not known' : `Sent with the API key "${row.keyName}"`}${localIds.has(row.id) ? ', from this window' : ''}`}
        >
          <span data-testid="traffic-key-name">{row.keyName ?? '—'}</span>
          {localIds.has(row.id) ? (
            <span className="tag" data-testid="traffic-this-window">
              this window
            </span>
          ) : null}
        </span>
      ),
    },
    // Wide enough for a whole catalog id (Qwen/Qwen2.5-7B-Instruct).
    {
      ...growingColumn('Model', 180, 1.6),
      cell: (row) => (
        <span title={row.model} data-testid="traffic-model">
          {row.model}
        </span>
      ),
    },
    { ...sessionColumn(1), cell: (row) => <SessionCell session={row.session} /> },
    { ...fixedColumn('TTFT', 60), cell: (row) => <span>{formatMs(row.ttftMs)}</span> },
    { ...fixedColumn('Duration', 62), cell: (row) => <span>{formatMs(row.durationMs)}</span> },
    { ...fixedColumn('Tokens (in/out)', 96), cell: (row) => <TokensCell usage={row.usage} source={row.usageSource} /> },
    {
      ...fixedColumn('Cost', 66),
      cell: (row) => (
        <span title={row.costUsd === null ? NO_PRICE : undefined} data-testid="traffic-cost">
          {formatCost(row.costUsd)}
        </span>
      ),
    },
    { ...growingColumn('Served by', 70, 0.6), cell: (row) => <span title={row.upstream ?? row.deployment ?? ''}>{row.upstream ?? row.deployment ?? '—'}</span> },
    { ...fixedColumn('Dedupe', 56), cell: (row) => <span>{row.dedupe ?? '—'}</span> },
  ]
}

export function telemetryFacts(row: TrafficRow): TrafficRowFacts {
  return { key: row.key, stoppable: row.status === 'running' ? row.id : null, completionId: row.id, attributes: { 'data-status': row.status } }
}
