import type { TrafficRow } from '../../logic/telemetry/traffic-table'
import { formatClock, formatCost, formatMs } from '../../lib/format'
import { fixedColumn, gridStyle, growingColumn, type GridColumn } from '../../lib/grid-columns'
import { VirtualList } from '../common/VirtualList'
import { TableHeaderRow } from './TableHeaderRow'

const ROW_HEIGHT = 30

interface TrafficTableProps {
  rows: readonly TrafficRow[]
  selectedKey: string | null
  /** Completion IDs of requests this window sent (they can be opened in the inspector). */
  localIds: ReadonlySet<string>
  stopNotes: Readonly<Record<string, string>>
  onSelect(key: string): void
  onStop(id: string): void
}

// Stop sits next to the status it changes, so it is in view without scrolling sideways.
const COLUMNS: readonly GridColumn[] = [
  fixedColumn('Time', 88),
  fixedColumn('Status', 120),
  fixedColumn('', 56),
  growingColumn('Client', 80, 1),
  // Model is wide enough for a whole catalog id (Qwen/Qwen2.5-7B-Instruct), and the columns' least
  // widths still add up to less than a 1280 px window.
  growingColumn('Model', 180, 1.6),
  growingColumn('Session', 120, 1.2),
  fixedColumn('TTFT', 70),
  fixedColumn('Duration', 76),
  fixedColumn('Tokens (in/out)', 90),
  fixedColumn('Usage', 64),
  fixedColumn('Cost', 64),
  growingColumn('Served by', 60, 0.6),
  fixedColumn('Dedupe', 56),
]
const GRID = gridStyle(COLUMNS)
/** Why a cost is "—": the gateway prices only models that have a price in config.json. */
export const NO_PRICE = 'No cost: this model has no price in config.json (models[].price, docs/configuration.md)'

export function TrafficTable({ rows, selectedKey, localIds, stopNotes, onSelect, onStop }: TrafficTableProps) {
  return (
    <div className="traffic" role="table" aria-label="Requests" style={GRID}>
      <VirtualList
        testId="traffic-table"
        header={<TableHeaderRow columns={COLUMNS} />}
        count={rows.length}
        rowHeight={ROW_HEIGHT}
        renderRow={(index) => {
          const row = rows[index]
          if (row === undefined) return null
          const note = stopNotes[row.id]
          return (
            <div
              key={row.key}
              role="row"
              className={`traffic__row ${row.key === selectedKey ? 'traffic__row--selected' : ''}`}
              style={{ height: ROW_HEIGHT }}
              onClick={() => onSelect(row.key)}
              data-testid="traffic-row"
              data-id={row.id}
              data-status={row.status}
            >
              <span>{formatClock(row.at)}</span>
              <span className={`status status--${row.status}`} data-testid="traffic-status">
                {row.status}
              </span>
              <span>
                {row.status === 'running' ? (
                  <button
                    type="button"
                    className="button button--small button--danger"
                    onClick={(e) => {
                      e.stopPropagation()
                      onStop(row.id)
                    }}
                    data-testid="traffic-stop"
                  >
                    Stop
                  </button>
                ) : note !== undefined ? (
                  <span className="muted" title={note}>
                    {note}
                  </span>
                ) : null}
              </span>
              <span
                className="traffic__client"
                data-testid="traffic-client"
                data-local={localIds.has(row.id)}
                title={`${row.keyName === null ? 'Accepted before this view subscribed: its key is not known' : `Sent with the API key "${row.keyName}"`}${localIds.has(row.id) ? ', from this window' : ''}`}
              >
                <span data-testid="traffic-key-name">{row.keyName ?? '—'}</span>
                {localIds.has(row.id) ? <span className="tag" data-testid="traffic-this-window">this window</span> : null}
              </span>
              <span title={row.model}>{row.model}</span>
              <span title={row.session} data-testid="traffic-session">
                {row.session}
              </span>
              <span>{formatMs(row.ttftMs)}</span>
              <span>{formatMs(row.durationMs)}</span>
              <span>{row.usage === null ? '—' : `${row.usage.prompt_tokens} / ${row.usage.completion_tokens}`}</span>
              <span title="upstream: the model server's count; estimate: Mortar's">{row.usageSource ?? '—'}</span>
              <span title={row.costUsd === null ? NO_PRICE : undefined} data-testid="traffic-cost">
                {formatCost(row.costUsd)}
              </span>
              <span title={row.upstream ?? row.deployment ?? ''}>{row.upstream ?? row.deployment ?? '—'}</span>
              <span>{row.dedupe ?? '—'}</span>
            </div>
          )
        }}
      />
    </div>
  )
}
