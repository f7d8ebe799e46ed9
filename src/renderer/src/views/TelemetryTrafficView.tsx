import { useCallback, useMemo, useState } from 'react'
import { modelsSeen, noTrafficFilter, visibleRows, type TrafficFilter } from '../logic/telemetry/traffic-table'
import { TrafficDetail } from '../components/traffic/TrafficDetail'
import { TrafficTable } from '../components/traffic/TrafficTable'
import { TrafficToolbar } from '../components/traffic/TrafficToolbar'
import type { Traffic } from '../hooks/use-traffic'

interface TelemetryTrafficViewProps {
  traffic: Traffic
  /** Completion ID → this window's run, for requests sent from the playground. */
  localRunIds: ReadonlyMap<string, string>
  onOpenRun(runId: string): void
  onOpenInPlayground(runId: string): void
}

/** Traffic from the telemetry stream alone: events, no bodies (capture is off). */
export function TelemetryTrafficView({ traffic, localRunIds, onOpenRun, onOpenInPlayground }: TelemetryTrafficViewProps) {
  const [filter, setFilter] = useState<TrafficFilter>(noTrafficFilter)
  const [selectedKey, setSelectedKey] = useState<string | null>(null)
  const [stopNotes, setStopNotes] = useState<Record<string, string>>({})
  const all = traffic.state.rows
  const rows = useMemo(() => visibleRows(all, filter), [all, filter])
  const models = useMemo(() => modelsSeen(all), [all])
  const running = useMemo(() => all.filter((row) => row.status === 'running').length, [all])
  const localIds = useMemo(() => new Set(localRunIds.keys()), [localRunIds])
  const selected = all.find((row) => row.key === selectedKey)
  const selectedRun = selected === undefined ? undefined : localRunIds.get(selected.id)
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

  return (
    <div className="traffic-view" data-testid="traffic-view">
      <TrafficToolbar
        filter={filter}
        models={models}
        connection={traffic.connection}
        shown={rows.length}
        total={all.length}
        running={running}
        onFilter={(patch) => setFilter((f) => ({ ...f, ...patch }))}
        onClear={traffic.clear}
      />
      <p className="muted" data-testid="capture-off">
        Capture is off, so Traffic shows each request&apos;s events but not its bodies or frames. <code>mortar serve --capture memory</code> (the
        default) or <code>disk</code> keeps them.
      </p>
      {all.length === 0 ? (
        <p className="muted empty" data-testid="traffic-empty">
          Every request through this gateway shows up here as it happens, from this window, IDE tools and scripts alike
          (requests of this key&apos;s organization).
        </p>
      ) : null}
      <TrafficTable rows={rows} selectedKey={selectedKey} localIds={localIds} stopNotes={stopNotes} onSelect={setSelectedKey} onStop={onStop} />
      {selected !== undefined ? (
        <TrafficDetail
          row={selected}
          onOpenInInspector={selectedRun === undefined ? undefined : () => onOpenRun(selectedRun)}
          onOpenInPlayground={selectedRun === undefined ? undefined : () => onOpenInPlayground(selectedRun)}
        />
      ) : null}
    </div>
  )
}
