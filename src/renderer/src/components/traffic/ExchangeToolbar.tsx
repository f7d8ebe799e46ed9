import { EXCHANGE_OUTCOMES, STATUS_CLASSES, type CaptureStatus } from '../../../../shared/api/traffic'
import type { TrafficFilterForm } from '../../lib/captured-rows'
import type { StreamConnection } from '../../lib/follow-event-stream'

interface ExchangeToolbarProps {
  form: TrafficFilterForm
  seen: { models: string[]; sessions: string[]; endpoints: string[]; clients: Array<{ id: string; label: string }> }
  connection: StreamConnection
  capture: CaptureStatus | null | undefined
  shown: number
  running: number
  onFilter(patch: Partial<TrafficFilterForm>): void
  onExport(format: 'har' | 'jsonl'): void
  onClear(): void
}

export function connectionText(connection: StreamConnection): string {
  switch (connection.kind) {
    case 'connecting':
      return 'Connecting…'
    case 'live':
      return 'Live'
    case 'reconnecting':
      return `Reconnecting in ${Math.round(connection.inMs / 1000)} s (${connection.reason})`
    case 'refused':
      return `Not connected: ${connection.reason}`
  }
}

function captureText(capture: CaptureStatus | null | undefined): string {
  if (capture === null || capture === undefined) return ''
  const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`
  return `capture: ${capture.mode} · ${capture.exchanges} kept, ${mb(capture.bytes)} of ${mb(capture.limits.max_bytes)}`
}

function Choice({ label, value, options, onChange, testId }: { label: string; value: string; options: ReadonlyArray<{ id: string; label: string }>; onChange(value: string): void; testId: string }) {
  return (
    <select value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} aria-label={label}>
      <option value="">{label}: any</option>
      {options.map((option) => (
        <option key={option.id} value={option.id}>
          {option.label}
        </option>
      ))}
    </select>
  )
}

const same = (values: readonly string[]) => values.map((id) => ({ id, label: id }))

/** Search, filters (sent to the traffic API as its query), exports of what they select, and Clear. */
export function ExchangeToolbar({ form, seen, connection, capture, shown, running, onFilter, onExport, onClear }: ExchangeToolbarProps) {
  return (
    <div className="toolbar" data-testid="traffic-toolbar">
      <span className={`live live--${connection.kind}`} data-testid="traffic-connection" data-state={connection.kind}>
        {connectionText(connection)}
      </span>
      <input
        type="search"
        placeholder="Search request and reply text"
        value={form.q}
        onChange={(e) => onFilter({ q: e.target.value })}
        data-testid="traffic-search"
        aria-label="Search request and reply text"
      />
      <Choice label="Status" value={form.status} options={same(STATUS_CLASSES)} onChange={(status) => onFilter({ status: status as TrafficFilterForm['status'] })} testId="traffic-filter-status" />
      <Choice label="Outcome" value={form.outcome} options={same(EXCHANGE_OUTCOMES)} onChange={(outcome) => onFilter({ outcome: outcome as TrafficFilterForm['outcome'] })} testId="traffic-filter-outcome" />
      <Choice label="Model" value={form.model} options={same(seen.models)} onChange={(model) => onFilter({ model })} testId="traffic-filter-model" />
      <Choice label="Client" value={form.client} options={seen.clients} onChange={(client) => onFilter({ client })} testId="traffic-filter-client" />
      <Choice label="Session" value={form.session} options={same(seen.sessions)} onChange={(session) => onFilter({ session })} testId="traffic-filter-session" />
      <Choice label="Endpoint" value={form.endpoint} options={same(seen.endpoints)} onChange={(endpoint) => onFilter({ endpoint })} testId="traffic-filter-endpoint" />
      <span className="spacer" />
      <span className="muted" data-testid="traffic-count">
        {shown} shown · {running} running
      </span>
      <span className="muted" data-testid="capture-status" data-mode={capture?.mode ?? ''}>
        {captureText(capture)}
      </span>
      <button type="button" className="button button--small" onClick={() => onExport('har')} title="HAR 1.2 of every exchange the filters select" data-testid="traffic-export-har">
        HAR
      </button>
      <button type="button" className="button button--small" onClick={() => onExport('jsonl')} title="JSON Lines of every exchange the filters select" data-testid="traffic-export-jsonl">
        JSONL
      </button>
      <button type="button" className="button button--small" onClick={onClear} title="Delete every captured exchange of this organization" data-testid="traffic-clear">
        Clear
      </button>
    </div>
  )
}
