import { CAPTURE_MODES, type CaptureMode } from '../../../../shared/api/traffic'
import type { CaptureModeState } from '../../hooks/use-capture-mode'
import { Field } from '../common/Field'
import { oneOf } from '../../logic/one-of'

interface CaptureSettingsProps {
  state: CaptureModeState
  /** The desktop app also keeps the choice for its next start; a browser tab changes the running gateway only. */
  desktop: boolean
  onChange(mode: CaptureMode): void
}

const MEANING: Record<CaptureMode, string> = {
  off: 'events only: no bodies, no frames',
  memory: 'kept until the gateway stops',
  disk: 'kept across restarts, in traffic.sqlite in the home directory',
}

const mb = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MB`

/** Settings → Traffic capture: what the gateway keeps of each request, changed at once. */
export function CaptureSettings({ state, desktop, onChange }: CaptureSettingsProps) {
  if (state.kind === 'unavailable') return null
  const ready = state.kind === 'ready' ? state : null
  const mode = ready?.changing ?? ready?.status.mode
  return (
    <section className="settings__section" data-testid="settings-capture-section">
      <h3>Traffic capture</h3>
      <Field
        label="Capture"
        hint={`What Traffic keeps of each request. Applies at once, no restart${desktop ? '; kept for the next start' : ' (until the gateway restarts: `mortar serve --capture` or config.json keep it)'}.`}
      >
        <select
          className="select--fit"
          value={mode ?? ''}
          disabled={ready === null || ready.changing !== null}
          onChange={(e) => {
            const chosen = oneOf(CAPTURE_MODES, e.target.value)
            if (chosen !== undefined) onChange(chosen)
          }}
          data-testid="settings-capture"
          data-mode={ready?.status.mode ?? ''}
        >
          {CAPTURE_MODES.map((option) => (
            <option key={option} value={option}>
              {option} — {MEANING[option]}
            </option>
          ))}
        </select>
      </Field>
      {ready !== null && ready.problem === null && ready.status.limits.max_bytes > 0 ? (
        <p className="muted" data-testid="settings-capture-status">
          {ready.changing !== null
            ? `Switching to ${ready.changing}…`
            : ready.status.mode === 'off'
              ? 'Nothing is kept.'
              : `${ready.status.exchanges} exchanges kept, ${mb(ready.status.bytes)} of ${mb(ready.status.limits.max_bytes)}.`}
        </p>
      ) : null}
      {ready?.problem != null ? (
        <p className="field__problem" role="alert" data-testid="settings-capture-problem">
          {ready.problem}
        </p>
      ) : null}
    </section>
  )
}
