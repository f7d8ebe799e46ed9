import { useCallback, useMemo, useState, type ReactNode } from 'react'
import type { CaptureStatus, ExchangeSummary } from '../../../shared/api/traffic'
import { ExchangeDetail } from '../components/traffic/ExchangeDetail'
import { EXCHANGE_COLUMNS, exchangeFacts } from '../components/traffic/exchange-columns'
import { SessionView } from '../components/traffic/SessionView'
import { TelemetryDetail } from '../components/traffic/TelemetryDetail'
import { telemetryColumns, telemetryFacts } from '../components/traffic/telemetry-columns'
import { CapturedFilters, TelemetryFilters } from '../components/traffic/TrafficFilters'
import { TrafficTable, type TrafficTableProps } from '../components/traffic/TrafficTable'
import { TrafficToolbar } from '../components/traffic/TrafficToolbar'
import { useCapturedExchange } from '../hooks/use-captured-exchange'
import type { OpenedRequest } from '../logic/playground/captured-as-chat'
import { useCapturedTraffic, type CapturedTraffic } from '../hooks/use-captured-traffic'
import { useSessionPrefixes } from '../hooks/use-session-prefixes'
import { useStopNotes, type StopNotes } from '../hooks/use-stop-notes'
import type { Traffic } from '../hooks/use-traffic'
import { filterParams, mergeSeen, noFilter, valuesSeen, type TrafficFilterForm } from '../lib/captured-rows'
import { errorMessage } from '../logic/error-message'
import type { GatewayClient } from '../lib/gateway-client'
import { saveFile } from '../lib/save-file'
import { modelsSeen, noTrafficFilter, visibleRows, type TrafficFilter } from '../logic/telemetry/traffic-table'

interface TrafficViewProps {
  client: GatewayClient
  traffic: Traffic
  /** Completion ID → this window's run, for requests sent from the playground. */
  localRunIds: ReadonlyMap<string, string>
  onOpenRun(runId: string): void
  onOpenInPlayground(runId: string): void
  onOpenCaptured(request: OpenedRequest): void
}

/**
 * Every request to /v1 as it happens. With capture on, the captured exchanges from the traffic
 * API (bodies, frames, search); with capture off (or a gateway without the traffic API) there are
 * no bodies to show, and the rows are the telemetry stream's events. One layout, toolbar and table
 * for both; the sources differ in their columns, filters and detail.
 */
export function TrafficView(props: TrafficViewProps) {
  const [form, setForm] = useState<TrafficFilterForm>(noFilter)
  const captured = useCapturedTraffic(props.client, form)
  const stops = useStopNotes(props.traffic.stop)
  if (captured.capture === null || captured.capture?.mode === 'off') return <TelemetryTraffic {...props} stops={stops} />
  return <CapturedTrafficList {...props} stops={stops} form={form} setForm={setForm} captured={captured} />
}


interface TrafficLayoutProps<Row> {
  toolbar: ReactNode
  notes: ReactNode
  empty: ReactNode
  /** The source's rows and columns: the one table both sources show. */
  table: Omit<TrafficTableProps<Row>, 'stops'>
  stops: StopNotes
  more?: ReactNode
  detail: ReactNode
}

/** What both sources show, in the same places. */
function TrafficLayout<Row>({ toolbar, notes, empty, table, stops, more, detail }: TrafficLayoutProps<Row>) {
  return (
    <div className={`traffic-view ${detail !== null ? 'traffic-view--selected' : ''}`} data-testid="traffic-view">
      {toolbar}
      {notes}
      {empty}
      <TrafficTable {...table} stops={stops} />
      {more}
      {detail}
    </div>
  )
}

function captureText(capture: CaptureStatus | null | undefined): string {
  if (capture === null || capture === undefined) return ''
  const mb = (bytes: number) => `${(bytes / 1_048_576).toFixed(1)} MB`
  return `capture: ${capture.mode} · ${capture.exchanges} kept, ${mb(capture.bytes)} of ${mb(capture.limits.max_bytes)}`
}

function CapturedTrafficList({
  client,
  onOpenCaptured,
  stops,
  form,
  setForm,
  captured,
}: TrafficViewProps & { stops: StopNotes; form: TrafficFilterForm; setForm(update: (form: TrafficFilterForm) => TrafficFilterForm): void; captured: CapturedTraffic }) {
  const [selectedId, setSelectedId] = useState<string | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [session, setSession] = useState<string | null>(null)
  const { rows } = captured
  // The menus keep every value seen in this view, not only the filtered rows' (adjusted while
  // rendering, as React advises for state derived from a changing prop).
  const [seen, setSeen] = useState(() => valuesSeen(rows))
  const [seenRows, setSeenRows] = useState(rows)
  if (seenRows !== rows) {
    setSeenRows(rows)
    setSeen((before) => mergeSeen(before, rows))
  }
  const running = useMemo(() => rows.filter((row) => row.outcome === 'in_progress').length, [rows])
  const selected = rows.find((row) => row.id === selectedId)

  const onExport = useCallback(
    (format: 'har' | 'jsonl', id?: string) => {
      const params = id === undefined ? { ...filterParams(form), format } : { format, ids: id }
      client.exportExchanges(params).then(
        (blob) => saveFile(blob, `${id ?? 'mortar-traffic'}.${format === 'har' ? 'har' : 'jsonl'}`),
        (error: unknown) => setProblem(`Export failed: ${errorMessage(error)}`),
      )
    },
    [client, form],
  )
  const onClear = useCallback(() => {
    setSelectedId(null)
    captured.clear().catch((error: unknown) => setProblem(`Clear failed: ${errorMessage(error)}`))
  }, [captured])

  return (
    <TrafficLayout
      toolbar={
        <TrafficToolbar
          connection={captured.connection}
          count={`${rows.length} shown · ${running} running`}
          status={
            <span className="muted" data-testid="capture-status" data-mode={captured.capture?.mode ?? ''}>
              {captureText(captured.capture)}
            </span>
          }
          actions={
            <>
              <button type="button" className="button button--small" onClick={() => onExport('har')} title="HAR 1.2 of every exchange the filters select" data-testid="traffic-export-har">
                HAR
              </button>
              <button type="button" className="button button--small" onClick={() => onExport('jsonl')} title="JSON Lines of every exchange the filters select" data-testid="traffic-export-jsonl">
                JSONL
              </button>
            </>
          }
          clearTitle="Delete every captured exchange of this organization"
          onClear={onClear}
        >
          <CapturedFilters form={form} seen={seen} onFilter={(patch) => setForm((f) => ({ ...f, ...patch }))} />
        </TrafficToolbar>
      }
      notes={
        problem !== null || captured.error !== null ? (
          <p className="field__problem" data-testid="traffic-problem">
            {problem ?? captured.error}
          </p>
        ) : null
      }
      empty={
        rows.length === 0 && !captured.loading ? (
          <p className="muted empty" data-testid="traffic-empty">
            Every request to /v1 shows up here as it happens, from this window, IDE tools and scripts alike, refused ones included (requests of this key&apos;s
            organization).
          </p>
        ) : null
      }
      table={{ label: 'Exchanges', columns: EXCHANGE_COLUMNS, rows, facts: exchangeFacts, selectedKey: selectedId, onSelect: setSelectedId }}
      stops={stops}
      more={
        captured.hasOlder ? (
          <button type="button" className="button button--small" onClick={captured.loadOlder} data-testid="traffic-load-older">
            Load older
          </button>
        ) : null
      }
      detail={
        session !== null ? (
          <SessionPanel
            client={client}
            session={session}
            version={rows.filter((row) => row.session === session).length}
            onSelect={(id) => {
              setSession(null)
              setSelectedId(id)
            }}
            onClose={() => setSession(null)}
          />
        ) : selected !== undefined ? (
          <SelectedExchange client={client} summary={selected} onOpenInPlayground={onOpenCaptured} onExport={onExport} onOpenSession={setSession} />
        ) : null
      }
    />
  )
}

function SelectedExchange({
  client,
  summary,
  onOpenInPlayground,
  onOpenSession,
  onExport,
}: {
  client: GatewayClient
  summary: ExchangeSummary
  onOpenInPlayground(request: OpenedRequest): void
  onOpenSession(session: string): void
  onExport(format: 'har' | 'jsonl', id: string): void
}) {
  const state = useCapturedExchange(client, summary)
  if (state.kind === 'loading') return <p className="muted">Reading the exchange…</p>
  if (state.kind === 'failed') return <p className="field__problem">Could not read the exchange: {state.message}</p>
  return <ExchangeDetail exchange={state.exchange} baseUrl={client.url('/')} onOpenInPlayground={onOpenInPlayground} onOpenSession={onOpenSession} onExport={onExport} />
}

function SessionPanel({ client, session, version, onSelect, onClose }: { client: GatewayClient; session: string; version: number; onSelect(id: string): void; onClose(): void }) {
  const state = useSessionPrefixes(client, session, String(version))
  if (state.kind === 'loading') return <p className="muted">Comparing the session&apos;s prompts…</p>
  if (state.kind === 'failed') return <p className="field__problem">Could not compare the session&apos;s prompts: {state.message}</p>
  return <SessionView prefixes={state.value} onSelect={onSelect} onClose={onClose} />
}

/** Traffic from the telemetry stream alone: events, no bodies (capture is off). */
function TelemetryTraffic({ traffic, localRunIds, onOpenRun, onOpenInPlayground, stops }: TrafficViewProps & { stops: StopNotes }) {
  const [filter, setFilter] = useState<TrafficFilter>(noTrafficFilter)
  const [selectedKey, setSelectedKey] = useState<string | null>(null)
  const all = traffic.state.rows
  const rows = useMemo(() => visibleRows(all, filter), [all, filter])
  const models = useMemo(() => modelsSeen(all), [all])
  const running = useMemo(() => all.filter((row) => row.status === 'running').length, [all])
  const columns = useMemo(() => telemetryColumns(new Set(localRunIds.keys())), [localRunIds])
  const selected = all.find((row) => row.key === selectedKey)
  const selectedRun = selected === undefined ? undefined : localRunIds.get(selected.id)

  return (
    <TrafficLayout
      toolbar={
        <TrafficToolbar
          connection={traffic.connection}
          count={`${rows.length} of ${all.length} requests · ${running} running`}
          clearTitle="Empty this list (the gateway keeps nothing: capture is off)"
          onClear={traffic.clear}
        >
          <TelemetryFilters filter={filter} models={models} onFilter={(patch) => setFilter((f) => ({ ...f, ...patch }))} />
        </TrafficToolbar>
      }
      notes={
        <p className="muted" data-testid="capture-off">
          Capture is off, so Traffic shows each request&apos;s events but not its bodies or frames. <code>mortar serve --capture memory</code> (the default) or{' '}
          <code>disk</code> keeps them.
        </p>
      }
      empty={
        all.length === 0 ? (
          <p className="muted empty" data-testid="traffic-empty">
            Every request through this gateway shows up here as it happens, from this window, IDE tools and scripts alike (requests of this key&apos;s
            organization).
          </p>
        ) : null
      }
      table={{ label: 'Requests', columns, rows, facts: telemetryFacts, selectedKey, onSelect: setSelectedKey }}
      stops={stops}
      detail={
        selected !== undefined ? (
          <TelemetryDetail
            row={selected}
            onOpenInInspector={selectedRun === undefined ? undefined : () => onOpenRun(selectedRun)}
            onOpenInPlayground={selectedRun === undefined ? undefined : () => onOpenInPlayground(selectedRun)}
          />
        ) : null
      }
    />
  )
}
