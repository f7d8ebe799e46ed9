import { useCallback, useMemo, useState } from 'react'
import type { Exchange } from '../../../shared/api/traffic'
import { ExchangeDetail } from '../components/traffic/ExchangeDetail'
import { ExchangeTable } from '../components/traffic/ExchangeTable'
import { ExchangeToolbar } from '../components/traffic/ExchangeToolbar'
import { SessionView } from '../components/traffic/SessionView'
import { useCapturedExchange } from '../hooks/use-captured-exchange'
import { useCapturedTraffic } from '../hooks/use-captured-traffic'
import { useSessionPrefixes } from '../hooks/use-session-prefixes'
import type { Traffic } from '../hooks/use-traffic'
import { filterParams, noFilter, valuesSeen, type TrafficFilterForm } from '../lib/captured-rows'
import type { GatewayClient } from '../lib/gateway-client'
import { saveFile } from '../lib/save-file'
import { TelemetryTrafficView } from './TelemetryTrafficView'

interface TrafficViewProps {
  client: GatewayClient
  traffic: Traffic
  /** Completion ID → this window's run, for requests sent from the playground. */
  localRunIds: ReadonlyMap<string, string>
  onOpenRun(runId: string): void
  onOpenInPlayground(runId: string): void
  onOpenCaptured(exchange: Exchange): void
}

/**
 * Every exchange the gateway captured, as it happens, from the traffic API. With capture off (or
 * a gateway without the traffic API) there are no bodies to show: the telemetry events are.
 */
export function TrafficView(props: TrafficViewProps) {
  const [form, setForm] = useState<TrafficFilterForm>(noFilter)
  const captured = useCapturedTraffic(props.client, form)
  if (captured.capture === null || captured.capture?.mode === 'off') {
    return <TelemetryTrafficView traffic={props.traffic} localRunIds={props.localRunIds} onOpenRun={props.onOpenRun} onOpenInPlayground={props.onOpenInPlayground} />
  }
  return <CapturedTrafficView {...props} form={form} setForm={setForm} captured={captured} />
}

function CapturedTrafficView({
  client,
  traffic,
  onOpenCaptured,
  form,
  setForm,
  captured,
}: TrafficViewProps & { form: TrafficFilterForm; setForm(update: (form: TrafficFilterForm) => TrafficFilterForm): void; captured: ReturnType<typeof useCapturedTraffic> }) {
  const [selectedId, setSelectedId] = useState<string | null>(null)
  const [stopNotes, setStopNotes] = useState<Record<string, string>>({})
  const [problem, setProblem] = useState<string | null>(null)
  const [session, setSession] = useState<string | null>(null)
  const { rows } = captured
  const seen = useMemo(() => valuesSeen(rows), [rows])
  const running = useMemo(() => rows.filter((row) => row.outcome === 'in_progress').length, [rows])
  const selected = rows.find((row) => row.id === selectedId)
  const { stop } = traffic

  const onStop = useCallback(
    (id: string) => {
      setStopNotes((notes) => ({ ...notes, [id]: 'stopping…' }))
      stop(id).then(
        (result) => setStopNotes((notes) => ({ ...notes, [id]: result })),
        (error: unknown) => setStopNotes((notes) => ({ ...notes, [id]: `stop failed: ${error instanceof Error ? error.message : String(error)}` })),
      )
    },
    [stop],
  )
  const onExport = useCallback(
    (format: 'har' | 'jsonl', id?: string) => {
      const params = id === undefined ? { ...filterParams(form), format } : { format, ids: id }
      client.exportExchanges(params).then(
        (blob) => saveFile(blob, `${id ?? 'mortar-traffic'}.${format === 'har' ? 'har' : 'jsonl'}`),
        (error: unknown) => setProblem(`Export failed: ${error instanceof Error ? error.message : String(error)}`),
      )
    },
    [client, form],
  )
  const onClear = useCallback(() => {
    setSelectedId(null)
    captured.clear().catch((error: unknown) => setProblem(`Clear failed: ${error instanceof Error ? error.message : String(error)}`))
  }, [captured])

  return (
    <div className={`traffic-view ${selected !== undefined || session !== null ? 'traffic-view--selected' : ''}`} data-testid="traffic-view">
      <ExchangeToolbar
        form={form}
        seen={seen}
        connection={captured.connection}
        capture={captured.capture}
        shown={rows.length}
        running={running}
        onFilter={(patch) => setForm((f) => ({ ...f, ...patch }))}
        onExport={(format) => onExport(format)}
        onClear={onClear}
      />
      {problem !== null || captured.error !== null ? (
        <p className="field__problem" data-testid="traffic-problem">
          {problem ?? captured.error}
        </p>
      ) : null}
      {rows.length === 0 && !captured.loading ? (
        <p className="muted empty" data-testid="traffic-empty">
          Every request to /v1 shows up here as it happens, from this window, IDE tools and scripts alike, refused ones
          included (requests of this key&apos;s organization).
        </p>
      ) : null}
      <ExchangeTable rows={rows} selectedId={selectedId} stopNotes={stopNotes} onSelect={setSelectedId} onStop={onStop} />
      {captured.hasOlder ? (
        <button type="button" className="button button--small" onClick={captured.loadOlder} data-testid="traffic-load-older">
          Load older
        </button>
      ) : null}
      {session !== null ? (
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
      ) : null}
    </div>
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
  summary: ReturnType<typeof useCapturedTraffic>['rows'][number]
  onOpenInPlayground(exchange: Exchange): void
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
  return <SessionView prefixes={state.prefixes} onSelect={onSelect} onClose={onClose} />
}
