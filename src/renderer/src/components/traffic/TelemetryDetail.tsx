import type { TrafficRow } from '../../logic/telemetry/traffic-table'
import { formatClock } from '../../lib/format'
import { OptimizerReportView, ToolSelectorReportView } from '../inspector/ReportViews'

interface TelemetryDetailProps {
  row: TrafficRow
  /** Set when this window sent the request: its frames are in the inspector. */
  onOpenInInspector?: (() => void) | undefined
  onOpenInPlayground?: (() => void) | undefined
}

/** One request of the telemetry stream: its events, reports and ending. */
export function TelemetryDetail({ row, onOpenInInspector, onOpenInPlayground }: TelemetryDetailProps) {
  return (
    <section className="traffic-detail" data-testid="traffic-detail">
      <header className="inspector__head">
        <code>{row.id}</code>
        <span className={`status status--${row.status}`}>{row.status}</span>
        <span className="spacer" />
        {onOpenInInspector !== undefined ? (
          <button type="button" className="button button--small" onClick={onOpenInInspector} data-testid="traffic-open-inspector">
            Open in inspector
          </button>
        ) : (
          <span className="muted" title="The telemetry stream carries events, not bodies: frames are recorded for requests sent from this window">
            Sent by another client: events only
          </span>
        )}
        {onOpenInPlayground !== undefined ? (
          <button type="button" className="button button--small" onClick={onOpenInPlayground} data-testid="traffic-open-playground">
            Open in playground
          </button>
        ) : null}
      </header>
      <div className="reports">
        {row.optimizer !== null ? <OptimizerReportView report={row.optimizer} /> : null}
        {row.toolSelector !== null ? <ToolSelectorReportView report={row.toolSelector} /> : null}
        <dl className="parsed__facts">
          <dt>client (key name)</dt>
          <dd data-testid="traffic-detail-client">{row.keyName ?? '—'}</dd>
          <dt>finish_reason</dt>
          <dd data-testid="traffic-detail-finish-reason">
            {row.finishReason ?? '—'}
            {row.finishReasonDerived ? <span className="muted"> (derived: the model server sent none)</span> : null}
          </dd>
          <dt>error</dt>
          <dd>{row.errorCode ?? '—'}</dd>
          <dt>cached tokens</dt>
          <dd>{row.cachedTokens ?? '—'}</dd>
          <dt>stream</dt>
          <dd>{row.stream === null ? '—' : String(row.stream)}</dd>
        </dl>
      </div>
      <ol className="events" data-testid="traffic-events">
        {row.events.map((event, i) => (
          <li key={i}>
            <span className="muted">{formatClock(event.at)}</span> <code>{event.type}</code>
          </li>
        ))}
      </ol>
    </section>
  )
}
