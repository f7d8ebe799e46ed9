import { useMemo, useState, type ReactNode } from 'react'
import { MortarHeader } from '../../../../shared/api/headers'
import type { CapturedInspection } from '../../logic/inspector/captured-exchange'
import { summarizeEmbeddings } from '../../logic/inspector/embeddings-reply'
import { exchangeMetrics, headerValue, isEventStream, isRunning, type ExchangeOutcome } from '../../logic/inspector/exchange'
import type { ExchangeSnapshot, StopState } from '../../lib/exchange-run'
import { ChoiceButtons } from '../common/ChoiceButtons'
import { Tabs } from '../common/Tabs'
import { EmbeddingsView } from './EmbeddingsView'
import { ExportPanel } from './ExportPanel'
import { FrameDetail } from './FrameDetail'
import { FrameList } from './FrameList'
import { HeadersTable } from './HeadersTable'
import { MetricsBar } from './MetricsBar'
import { OutcomeBadge } from './OutcomeBadge'
import { ParsedView } from './ParsedView'
import { RawBody } from './RawBody'
import { OptimizerReportView, ToolSelectorReportView } from './ReportViews'
import { RequestBodies } from './RequestBodies'
import { Timeline } from './Timeline'

type Section = 'reports' | 'headers' | 'request' | 'export'
const SECTIONS: ReadonlyArray<{ id: Section; label: string }> = [
  { id: 'reports', label: 'Reports' },
  { id: 'headers', label: 'Headers' },
  { id: 'request', label: 'Request body' },
  { id: 'export', label: 'Export' },
]

function stopText(stop: StopState): string | null {
  switch (stop.kind) {
    case 'idle':
      return null
    case 'requesting':
      return 'Stop requested…'
    case 'failed':
      return `Stop failed: ${stop.message}`
    case 'answered':
      return stop.status === 200 && stop.body.stopped ? `Stopped ${stop.body.id}` : `Nothing to stop: ${stop.body.id} was not running`
  }
}

/** Why an exchange has no reply to assemble, when it ended without one. */
function noReplyText(outcome: ExchangeOutcome): string | null {
  if (outcome.kind === 'http_error') return `No reply: the gateway answered HTTP ${outcome.status} with the error above.`
  if (outcome.kind === 'network_error') return 'No reply: the request got no answer (the network error above).'
  return null
}

interface InspectorProps {
  snapshot: ExchangeSnapshot
  /** ms since the request was sent, ticking while it runs. */
  elapsed: number
  onEditAndResend?: (() => void) | undefined
  /** Set for an exchange the gateway captured: its headers and bodies as received, and the model server's side. */
  captured?: CapturedInspection | undefined
  /** Buttons for the header (open in playground, exports…). */
  actions?: ReactNode
}

/** Which frames the split shows: what the client got, or what the model server sent. */
type Side = 'client' | 'upstream'
const SIDES: ReadonlyArray<{ id: Side; label: string }> = [
  { id: 'client', label: 'What the client got' },
  { id: 'upstream', label: 'What the model server sent' },
]

export function Inspector({ snapshot, elapsed, onEditAndResend, captured, actions }: InspectorProps) {
  const [section, setSection] = useState<Section>('reports')
  const [selectedSeq, setSelectedSeq] = useState<number | null>(null)
  const [side, setSide] = useState<Side>('client')
  const { exchange, outcome } = snapshot
  const upstream = side === 'upstream' ? (captured?.upstream ?? null) : null
  const frames = upstream?.frames ?? snapshot.frames
  const frameCount = upstream === null ? snapshot.frameCount : upstream.frames.length
  const reply = upstream?.reply ?? snapshot.reply
  const running = isRunning(outcome)
  const metrics = exchangeMetrics(exchange, snapshot.reply, elapsed)
  // Before the response says, the request does: a non-streamed one waits for a body, not frames.
  const streamed = upstream !== null ? upstream.frames.length > 0 || upstream.bodyText === null : exchange.response === null ? exchange.request.body.stream !== false : isEventStream(exchange.response)
  const bodyText = upstream !== null ? upstream.bodyText : exchange.bodyText
  // An embeddings reply is read once per body, not per render: it can be megabytes of numbers.
  const embeddings = useMemo(() => (streamed ? null : summarizeEmbeddings(bodyText)), [streamed, bodyText])
  const responseHeaders = exchange.response?.headers ?? []
  const optimizer = headerValue(responseHeaders, MortarHeader.optimizer)
  const toolSelector = headerValue(responseHeaders, MortarHeader.toolSelector)
  const requestHeaders: Array<[string, string]> =
    captured !== undefined
      ? captured.requestHeaders
      : [['Authorization', 'Bearer mk_live_… (this window’s key, not shown)'], ['Content-Type', 'application/json'], ...Object.entries(exchange.request.headers)]
  const stop = stopText(snapshot.stop)

  return (
    <section className="inspector" data-testid="inspector" data-running={running}>
      <header className="inspector__head">
        <OutcomeBadge outcome={outcome} />
        {snapshot.requestId !== null ? (
          <code className="muted" data-testid="request-id">
            {snapshot.requestId}
          </code>
        ) : null}
        {stop !== null ? (
          <span className="muted" data-testid="stop-result">
            {stop}
          </span>
        ) : null}
        <span className="spacer" />
        {actions}
        {onEditAndResend !== undefined ? (
          <button type="button" className="button button--small" onClick={onEditAndResend} data-testid="edit-resend">
            Edit and resend
          </button>
        ) : null}
      </header>
      <MetricsBar metrics={metrics} frames={frameCount} pings={reply.pings} />
      {streamed ? <Timeline frames={frames} count={frameCount} spanMs={metrics.durationMs ?? elapsed} responseAt={exchange.response?.at ?? null} /> : null}
      {captured?.upstream != null ? (
        <div className="inspector__sides" role="group" aria-label="Which side of the exchange">
          <ChoiceButtons choices={SIDES} chosen={side} onChoose={setSide} testIdPrefix="side-" />
          <span className="muted">{side === 'upstream' ? `from ${captured.upstream.replica}, HTTP ${captured.upstream.status ?? '—'}` : ''}</span>
        </div>
      ) : null}
      <div className="inspector__split" data-side={side}>
        <div className="inspector__frames">
          <h3>{streamed ? 'Raw frames' : 'Raw body'}</h3>
          {streamed ? (
            <>
              <FrameList frames={frames} count={frameCount} selected={selectedSeq} onSelect={setSelectedSeq} />
              <FrameDetail frame={selectedSeq === null ? undefined : frames[selectedSeq]} />
            </>
          ) : (
            <RawBody key={`${exchange.id} ${side}`} text={bodyText} waiting={running} />
          )}
        </div>
        {embeddings !== null ? <EmbeddingsView summary={embeddings} /> : <ParsedView reply={reply} streamed={streamed} noReply={upstream === null ? noReplyText(outcome) : null} />}
      </div>
      <Tabs<Section> tabs={SECTIONS} active={section} onSelect={setSection} testIdPrefix="inspector-tab" />
      <div className="inspector__section">
        {section === 'reports' ? (
          optimizer === undefined && toolSelector === undefined ? (
            <p className="muted">{exchange.response === null ? 'Waiting for the response headers…' : 'This response carries no reports.'}</p>
          ) : (
            <div className="reports">
              {optimizer !== undefined ? <OptimizerReportView report={optimizer} /> : null}
              {toolSelector !== undefined ? <ToolSelectorReportView report={toolSelector} /> : null}
            </div>
          )
        ) : null}
        {section === 'headers' ? (
          <div className="reports">
            <HeadersTable headers={requestHeaders} testId="request-headers" caption={`POST ${exchange.request.url}${captured !== undefined ? ' (as received; credentials as hints)' : ''}`} />
            <HeadersTable
              headers={responseHeaders}
              testId="response-headers"
              caption={exchange.response === null ? 'No response yet' : `HTTP ${exchange.response.status} after ${exchange.response.at.toFixed(1)} ms`}
            />
          </div>
        ) : null}
        {section === 'request' ? (
          captured !== undefined ? (
            <RequestBodies received={captured.receivedBody} model={captured.modelBody} />
          ) : (
            <pre className="code" data-testid="request-body">
              {JSON.stringify(exchange.request.body, null, 2)}
            </pre>
          )
        ) : null}
        {section === 'export' ? <ExportPanel exchange={exchange} frames={frames} frameCount={frameCount} /> : null}
      </div>
    </section>
  )
}
