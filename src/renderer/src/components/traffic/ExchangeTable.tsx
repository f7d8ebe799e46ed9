import type { ExchangeSummary } from '../../../../shared/api/traffic'
import { formatClock, formatMs } from '../../lib/format'
import { fixedColumn, gridStyle, growingColumn, type GridColumn } from '../../lib/grid-columns'
import { VirtualList } from '../common/VirtualList'
import { TableHeaderRow } from './TableHeaderRow'

const ROW_HEIGHT = 30

// Stop sits next to the status it changes, so it is in view without scrolling sideways.
const COLUMNS: readonly GridColumn[] = [
  fixedColumn('Time', 88),
  fixedColumn('Status', 52),
  fixedColumn('', 56),
  fixedColumn('Endpoint', 150),
  growingColumn('Model', 120, 1.4),
  growingColumn('Client', 96, 1),
  growingColumn('Session', 96, 1),
  fixedColumn('TTFT', 70),
  fixedColumn('Duration', 76),
  fixedColumn('Tokens (in/out)', 100),
  fixedColumn('Cached', 60),
  fixedColumn('Outcome', 110),
]
const GRID = gridStyle(COLUMNS)

interface ExchangeTableProps {
  rows: readonly ExchangeSummary[]
  selectedId: string | null
  stopNotes: Readonly<Record<string, string>>
  onSelect(id: string): void
  onStop(completionId: string): void
}

function outcomeText(row: ExchangeSummary): string {
  if (row.outcome === 'finished' && row.finish_reason !== null) return `finished · ${row.finish_reason}`
  if ((row.outcome === 'refused' || row.outcome === 'upstream_error') && row.error?.code != null) return `${row.outcome} · ${row.error.code}`
  return row.outcome === 'in_progress' ? 'running' : row.outcome
}

/** Every captured exchange, newest first: one row each, with what a list can show of it. */
export function ExchangeTable({ rows, selectedId, stopNotes, onSelect, onStop }: ExchangeTableProps) {
  return (
    <div className="traffic" role="table" aria-label="Exchanges" style={GRID}>
      <VirtualList
        testId="traffic-table"
        header={<TableHeaderRow columns={COLUMNS} />}
        count={rows.length}
        rowHeight={ROW_HEIGHT}
        renderRow={(index) => {
          const row = rows[index]
          if (row === undefined) return null
          const running = row.outcome === 'in_progress'
          const note = row.completion_id === null ? undefined : stopNotes[row.completion_id]
          const outcome = outcomeText(row)
          return (
            <div
              key={row.id}
              role="row"
              className={`traffic__row ${row.id === selectedId ? 'traffic__row--selected' : ''}`}
              style={{ height: ROW_HEIGHT }}
              onClick={() => onSelect(row.id)}
              data-testid="traffic-row"
              data-id={row.id}
              data-outcome={row.outcome}
              data-status={row.status ?? ''}
            >
              <span>{formatClock(row.started_at)}</span>
              <span className={`http-status http-status--${row.status === null ? 'none' : Math.floor(row.status / 100)}`} data-testid="traffic-status">
                {row.status ?? '…'}
              </span>
              <span>
                {running && row.completion_id !== null ? (
                  <button
                    type="button"
                    className="button button--small button--danger"
                    onClick={(e) => {
                      e.stopPropagation()
                      if (row.completion_id !== null) onStop(row.completion_id)
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
              <span title={`${row.method} ${row.endpoint}`} data-testid="traffic-endpoint">
                {row.method === 'POST' ? '' : `${row.method} `}
                {row.endpoint}
              </span>
              <span title={row.model ?? ''} data-testid="traffic-model">
                {row.model ?? '—'}
              </span>
              <span
                title={row.client.kind === 'key' ? `Sent with the API key "${row.client.label}" (${row.client.key_hint ?? ''})` : `Refused credential: ${row.client.key_hint ?? 'none sent'}`}
                className={row.client.kind === 'key' ? '' : 'traffic__client--refused'}
                data-testid="traffic-key-name"
              >
                {row.client.label}
              </span>
              <span title={row.session ?? ''} data-testid="traffic-session">
                {row.session ?? '—'}
              </span>
              <span data-testid="traffic-ttft">{formatMs(row.ttft_ms)}</span>
              <span>{formatMs(row.duration_ms)}</span>
              <span title={row.usage_source === null ? '' : `usage: ${row.usage_source === 'upstream' ? "the model server's count" : "Mortar's estimate"}`} data-testid="traffic-tokens">
                {row.usage === null ? '—' : `${row.usage.prompt_tokens} / ${row.usage.completion_tokens}${row.usage_source === 'estimate' ? ' ~' : ''}`}
              </span>
              <span title="Prompt tokens the model server said it served from its prefix cache">{row.cached_tokens ?? '—'}</span>
              <span className={`status status--${row.outcome}`} title={row.error?.message ?? outcome} data-testid="traffic-outcome">
                {outcome}
                {row.truncated !== null ? ' ✂' : ''}
              </span>
            </div>
          )
        }}
      />
    </div>
  )
}
