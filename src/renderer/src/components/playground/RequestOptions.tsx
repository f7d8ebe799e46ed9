import { PARALLEL_TOOL_CALLS, type PlaygroundForm } from '../../logic/playground/playground-request'
import { Field } from '../common/Field'
import { oneOf } from '../../logic/one-of'

type Options = Pick<
  PlaygroundForm,
  'maxTokens' | 'temperature' | 'topP' | 'stop' | 'seed' | 'stream' | 'includeUsage' | 'toolChoice' | 'parallelToolCalls'
>

/** The sampling fields: sent as typed, forwarded to model servers; the scripted model ignores them. */
const SAMPLING = [
  { key: 'temperature', label: 'temperature', placeholder: '0 – 2', testId: 'temperature' },
  { key: 'topP', label: 'top_p', placeholder: '0 – 1', testId: 'top-p' },
  { key: 'seed', label: 'seed', placeholder: 'whole number', testId: 'seed' },
] as const

interface RequestOptionsProps {
  form: Options
  toolNames: string[]
  problems: Partial<Record<keyof Options, string[]>>
  onChange(patch: Partial<Options>): void
  /** The chosen model's `default_max_tokens` from /v1/models (null: none sent); undefined while unknown. */
  defaultMaxTokens: number | null | undefined
}

/** What a blank max_tokens means for the chosen model, as the gateway will apply it. */
function blankMaxTokens(defaultMaxTokens: number | null | undefined): string {
  if (defaultMaxTokens === undefined) return 'auto'
  return defaultMaxTokens === null ? "none sent (the server's limit)" : `${defaultMaxTokens} (model default)`
}

export function RequestOptions({ form, toolNames, problems, onChange, defaultMaxTokens }: RequestOptionsProps) {
  return (
    <fieldset className="options">
      <legend>Options</legend>
      <div className="options__grid">
        <Field label="max_tokens" problems={problems.maxTokens} hint="blank: the model's default, lowered to fit the window" wide>
          <input
            inputMode="numeric"
            value={form.maxTokens}
            placeholder={blankMaxTokens(defaultMaxTokens)}
            onChange={(e) => onChange({ maxTokens: e.target.value })}
            data-testid="max-tokens"
          />
        </Field>
        {SAMPLING.map(({ key, label, placeholder, testId }) => (
          <Field key={key} label={label} problems={problems[key]}>
            <input inputMode="decimal" value={form[key]} placeholder={placeholder} onChange={(e) => onChange({ [key]: e.target.value })} data-testid={testId} />
          </Field>
        ))}
        <Field label="stop" problems={problems.stop} hint="one sequence per line, up to 4">
          <textarea className="grow" rows={1} value={form.stop} onChange={(e) => onChange({ stop: e.target.value })} data-testid="stop-sequences" />
        </Field>
        <Field label="tool_choice" problems={problems.toolChoice} wide>
          <select value={form.toolChoice} onChange={(e) => onChange({ toolChoice: e.target.value })} data-testid="tool-choice">
            <option value="">(not sent)</option>
            <option value="auto">auto</option>
            <option value="none">none</option>
            <option value="required">required</option>
            {toolNames.map((name) => (
              <option key={name} value={`function:${name}`}>
                function: {name}
              </option>
            ))}
          </select>
        </Field>
        <Field label="parallel_tool_calls" problems={problems.parallelToolCalls}>
          <select
            value={form.parallelToolCalls}
            onChange={(e) => onChange({ parallelToolCalls: oneOf(PARALLEL_TOOL_CALLS, e.target.value) ?? '' })}
            data-testid="parallel-tool-calls"
          >
            <option value="">(not sent)</option>
            <option value="true">true</option>
            <option value="false">false</option>
          </select>
        </Field>
        <div className="options__checks">
          <label className="check">
            <input type="checkbox" checked={form.stream} onChange={(e) => onChange({ stream: e.target.checked })} data-testid="stream-toggle" />
            stream
          </label>
          <label className="check">
            <input
              type="checkbox"
              checked={form.includeUsage}
              disabled={!form.stream}
              onChange={(e) => onChange({ includeUsage: e.target.checked })}
              data-testid="include-usage-toggle"
            />
            include_usage
          </label>
        </div>
      </div>
    </fieldset>
  )
}
