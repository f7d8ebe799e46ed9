import type { CSSProperties } from 'react'
import type { TrafficRow } from '../../../../shared/telemetry/traffic-table'
import { formatClock, formatCost, formatMs } from '../../lib/format'
import { VirtualList } from '../common/VirtualList'

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

interface Column {
  title: string
  /** The grid track, whose smallest width is `min` px. */
  track: string
  min: number
}

const fixed = (title: string, px: number): Column => ({ title, track: `${px}px`, min: px })
const growing = (title: string, px: number, fr: number): Column => ({ title, track: `minmax(${px}px, ${fr}fr)`, min: px })

// Stop sits next to the status it changes, so it is in view without scrolling sideways.
const COLUMNS: readonly Column[] = [
  fixed('Time', 88),
  fixed('Status', 120),
  fixed('', 56),
  growing('Client', 96, 1),
  growing('Model', 110, 1.4),
  growing('Session', 90, 1),
  fixed('TTFT', 70),
  fixed('Duration', 76),
  fixed('Tokens (in/out)', 90),
  fixed('Usage', 64),
  fixed('Cost', 64),
  growing('Served by', 70, 1),
  fixed('Dedupe', 56),
]
const GAP_PX = 8
const PADDING_PX = 8

/**
 * The header row and every body row share one grid (the columns above) and one smallest width,
 * so each title sits over its column at any window width; narrower windows scroll the header
 * and the rows sideways together.
 */
const gridStyle = {
  '--traffic-columns': COLUMNS.map((c) => c.track).join(' '),
  '--traffic-gap': `${GAP_PX}px`,
  '--traffic-min-width': `${COLUMNS.reduce((sum, c) => sum + c.min, 0) + GAP_PX * (COLUMNS.length - 1) + 2 * PADDING_PX}px`,
} as CSSProperties

export function TrafficTable({ rows, selectedKey, localIds, stopNotes, onSelect, onStop }: TrafficTableProps) {
  return (
    <div className="traffic" role="table" aria-label="Requests" style={gridStyle}>
      <VirtualList
        testId="traffic-table"
        header={
          <div className="traffic__row traffic__row--head" role="row">
            {COLUMNS.map((column, i) => (
              <span key={i} role="columnheader">
                {column.title}
              </span>
            ))}
          </div>
        }
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
              <span>{formatCost(row.costUsd)}</span>
              <span title={row.upstream ?? row.deployment ?? ''}>{row.upstream ?? row.deployment ?? '—'}</span>
              <span>{row.dedupe ?? '—'}</span>
            </div>
          )
        }}
      />
    </div>
  )
}
