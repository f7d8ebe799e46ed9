import { HeaderName } from '../../../../shared/api/headers'
import { OPTIMIZER_PASSES } from '../../../../shared/api/optimizer'
import type { PlaygroundForm } from '../../logic/playground/playground-request'
import { Field } from '../common/Field'

type Headers = Pick<PlaygroundForm, 'optimize' | 'toolSelect' | 'session' | 'dedupe' | 'idempotencyKey'>

interface MortarHeadersEditorProps {
  form: Headers
  problems: Partial<Record<keyof Headers, string[]>>
  onChange(patch: Partial<Headers>): void
}

function newIdempotencyKey(): string {
  return `ui-${crypto.randomUUID()}`
}

export function MortarHeadersEditor({ form, problems, onChange }: MortarHeadersEditorProps) {
  return (
    <fieldset className="options">
      <legend>Mortar headers</legend>
      <div className="options__grid">
        <Field label={HeaderName.optimize} problems={problems.optimize} hint={`off, on, or passes: ${OPTIMIZER_PASSES.join(', ')}`}>
          <input
            list="optimize-values"
            value={form.optimize}
            placeholder="(not sent)"
            onChange={(e) => onChange({ optimize: e.target.value })}
            data-testid="header-optimize"
          />
          <datalist id="optimize-values">
            <option value="on" />
            <option value="off" />
            {OPTIMIZER_PASSES.map((pass) => (
              <option key={pass} value={pass} />
            ))}
            <option value="json-tool-blocks,collapse-spaces" />
          </datalist>
        </Field>
        <Field label={HeaderName.toolSelect} problems={problems.toolSelect} hint="named: send only the tool tool_choice names">
          <select value={form.toolSelect} onChange={(e) => onChange({ toolSelect: e.target.value })} data-testid="header-tool-select">
            <option value="">(not sent)</option>
            <option value="named">named</option>
          </select>
        </Field>
        <Field label={HeaderName.session} problems={problems.session}>
          <input value={form.session} placeholder="(new session)" onChange={(e) => onChange({ session: e.target.value })} data-testid="header-session" />
        </Field>
        <Field label={HeaderName.dedupe} problems={problems.dedupe} hint="in-flight: needs stream off and a key">
          <select
            value={form.dedupe}
            onChange={(e) => {
              const dedupe = e.target.value
              onChange(dedupe !== '' && form.idempotencyKey === '' ? { dedupe, idempotencyKey: newIdempotencyKey() } : { dedupe })
            }}
            data-testid="header-dedupe"
          >
            <option value="">(not sent)</option>
            <option value="in-flight">in-flight</option>
          </select>
        </Field>
        <Field label={HeaderName.idempotencyKey} problems={problems.idempotencyKey}>
          <span className="inline">
            <input
              value={form.idempotencyKey}
              placeholder="(not sent)"
              onChange={(e) => onChange({ idempotencyKey: e.target.value })}
              data-testid="header-idempotency-key"
            />
            <button type="button" className="button button--small" onClick={() => onChange({ idempotencyKey: newIdempotencyKey() })}>
              New
            </button>
          </span>
        </Field>
      </div>
    </fieldset>
  )
}
