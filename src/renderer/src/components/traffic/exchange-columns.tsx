import type { ExchangeSummary } from '../../../../shared/api/traffic'
import { formatClock, formatMs } from '../../lib/format'
import { fixedColumn, growingColumn } from '../../lib/grid-columns'
import { SessionCell, sessionColumn } from './SessionCell'
import { TokensCell } from './TokensCell'
import type { TrafficColumn, TrafficRowFacts } from './TrafficTable'

function outcomeText(row: ExchangeSummary): string {
  if (row.outcome === 'finished' && row.finish_reason !== null) return `finished · ${row.finish_reason}`
  if ((row.outcome === 'refused' || row.outcome === 'upstream_error') && row.error?.code != null) return `${row.outcome} · ${row.error.code}`
  return row.outcome === 'in_progress' ? 'running' : row.outcome
}

/**
 * The captured exchanges' columns (the traffic API's summaries). Stop follows Time and Status.
 * Model fits a whole catalog id (Qwen/Qwen2.5-7B-Instruct), Session an id Mortar made up and
 * Outcome `finished · tool_calls`; the other columns are as wide as their titles and usual values.
 * The least widths add up to less than a 1280 px window, so all of that is whole there.
 */
export const EXCHANGE_COLUMNS: readonly TrafficColumn<ExchangeSummary>[] = [
  {
    ...fixedColumn('Time', 84),
    // In a cluster, the instance that served it, without a column of its own.
    cell: (row) => <span title={row.instance !== undefined ? `Served by ${row.instance}` : undefined}>{formatClock(row.started_at)}</span>,
  },
  {
    ...fixedColumn('Status', 44),
    cell: (row) => (
      <span className={`http-status http-status--${row.status === null ? 'none' : Math.floor(row.status / 100)}`} data-testid="traffic-status">
        {row.status ?? '…'}
      </span>
    ),
  },
  {
    ...fixedColumn('Endpoint', 134),
    cell: (row) => (
      <span title={`${row.method} ${row.endpoint}`} data-testid="traffic-endpoint">
        {row.method === 'POST' ? '' : `${row.method} `}
        {row.endpoint}
      </span>
    ),
  },
  {
    ...growingColumn('Model', 170, 1.4),
    cell: (row) => (
      <span title={row.model ?? ''} data-testid="traffic-model">
        {row.model ?? '—'}
      </span>
    ),
  },
  {
    ...growingColumn('Client', 60, 1),
    cell: (row) => (
      <span
        title={row.client.kind === 'key' ? `Sent with the API key "${row.client.label}" (${row.client.key_hint ?? ''})` : `Refused credential: ${row.client.key_hint ?? 'none sent'}`}
        className={row.client.kind === 'key' ? '' : 'traffic__client--refused'}
        data-testid="traffic-key-name"
      >
        {row.client.label}
      </span>
    ),
  },
  { ...sessionColumn(1), cell: (row) => <SessionCell session={row.session} /> },
  { ...fixedColumn('TTFT', 60), cell: (row) => <span data-testid="traffic-ttft">{formatMs(row.ttft_ms)}</span> },
  { ...fixedColumn('Duration', 62), cell: (row) => <span>{formatMs(row.duration_ms)}</span> },
  { ...fixedColumn('Tokens (in/out)', 96), cell: (row) => <TokensCell usage={row.usage} source={row.usage_source} /> },
  { ...fixedColumn('Cached', 52), cell: (row) => <span title="Prompt tokens the model server said it served from its prefix cache">{row.cached_tokens ?? '—'}</span> },
  {
    ...fixedColumn('Outcome', 130),
    cell: (row) => (
      <span className={`status status--${row.outcome}`} title={row.error?.message ?? outcomeText(row)} data-testid="traffic-outcome">
        {outcomeText(row)}
        {row.truncated !== null ? ' ✂' : ''}
      </span>
    ),
  },
]

export function exchangeFacts(row: ExchangeSummary): TrafficRowFacts {
  return {
    key: row.id,
    stoppable: row.outcome === 'in_progress' ? row.completion_id : null,
    completionId: row.completion_id,
    attributes: { 'data-outcome': row.outcome, 'data-status': row.status === null ? '' : String(row.status) },
  }
}
