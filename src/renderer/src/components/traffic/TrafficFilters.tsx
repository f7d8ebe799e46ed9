import { EXCHANGE_OUTCOMES, STATUS_CLASSES } from '../../../../shared/api/traffic'
import type { TrafficFilterForm } from '../../lib/captured-rows'
import type { TrafficFilter } from '../../logic/telemetry/traffic-table'

function Choice<T extends string>({
  label,
  value,
  options,
  onChange,
  testId,
}: {
  label: string
  value: T | ''
  options: ReadonlyArray<{ id: T; label: string }>
  onChange(value: T | ''): void
  testId: string
}) {
  return (
    <select
      value={value}
      onChange={(e) => onChange(options.find((option) => option.id === e.target.value)?.id ?? '')}
      data-testid={testId}
      aria-label={label}
    >
      <option value="">{label}: any</option>
      {options.map((option) => (
        <option key={option.id} value={option.id}>
          {option.label}
        </option>
      ))}
    </select>
  )
}

function SearchField({ label, value, onChange, testId }: { label: string; value: string; onChange(value: string): void; testId: string }) {
  return <input type="search" placeholder={label} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} aria-label={label} />
}

/** A moment of the time range, to the second, in local time. */
function TimeField({ label, value, onChange, testId }: { label: string; value: string; onChange(value: string): void; testId: string }) {
  return (
    <label className="check" title={`${label} (local time)`}>
      {label}
      <input type="datetime-local" step={1} value={value} onChange={(e) => onChange(e.target.value)} data-testid={testId} aria-label={`${label} (local time)`} />
    </label>
  )
}

const same = <T extends string>(values: readonly T[]) => values.map((id) => ({ id, label: id }))

interface CapturedFiltersProps {
  form: TrafficFilterForm
  seen: { models: string[]; sessions: string[]; endpoints: string[]; clients: Array<{ id: string; label: string }> }
  onFilter(patch: Partial<TrafficFilterForm>): void
}

/** The captured list's filters: sent to the traffic API as its query. */
export function CapturedFilters({ form, seen, onFilter }: CapturedFiltersProps) {
  return (
    <>
      <SearchField label="Search request and reply text" value={form.q} onChange={(q) => onFilter({ q })} testId="traffic-search" />
      <Choice label="Status" value={form.status} options={same(STATUS_CLASSES)} onChange={(status) => onFilter({ status })} testId="traffic-filter-status" />
      <Choice label="Outcome" value={form.outcome} options={same(EXCHANGE_OUTCOMES)} onChange={(outcome) => onFilter({ outcome })} testId="traffic-filter-outcome" />
      <Choice label="Model" value={form.model} options={same(seen.models)} onChange={(model) => onFilter({ model })} testId="traffic-filter-model" />
      <Choice label="Client" value={form.client} options={seen.clients} onChange={(client) => onFilter({ client })} testId="traffic-filter-client" />
      <Choice label="Session" value={form.session} options={same(seen.sessions)} onChange={(session) => onFilter({ session })} testId="traffic-filter-session" />
      <Choice label="Endpoint" value={form.endpoint} options={same(seen.endpoints)} onChange={(endpoint) => onFilter({ endpoint })} testId="traffic-filter-endpoint" />
      <TimeField label="From" value={form.since} onChange={(since) => onFilter({ since })} testId="traffic-filter-since" />
      <TimeField label="Until" value={form.until} onChange={(until) => onFilter({ until })} testId="traffic-filter-until" />
    </>
  )
}

interface TelemetryFiltersProps {
  filter: TrafficFilter
  models: string[]
  onFilter(patch: Partial<TrafficFilter>): void
}

/** The telemetry list's filters, applied in the window. */
export function TelemetryFilters({ filter, models, onFilter }: TelemetryFiltersProps) {
  return (
    <>
      <SearchField label="Filter by session" value={filter.session} onChange={(session) => onFilter({ session })} testId="traffic-filter-session" />
      <Choice label="Model" value={filter.model} options={same(models)} onChange={(model) => onFilter({ model })} testId="traffic-filter-model" />
      <label className="check">
        <input type="checkbox" checked={filter.runningOnly} onChange={(e) => onFilter({ runningOnly: e.target.checked })} data-testid="traffic-filter-running" />
        running only
      </label>
    </>
  )
}
