import type { ModelObject } from '../../../../shared/api/chat-response'
import type { ModelsState } from '../../hooks/use-models'
import { Field } from '../common/Field'

interface ModelPickerProps {
  models: ModelsState
  value: string
  onChange(model: string): void
  problems: string[]
}

function label(model: ModelObject): string {
  const window = model.context_window === null ? 'window: the server decides' : `${model.context_window.toLocaleString()} tokens`
  return model.deployment === null ? `${model.id} (not deployed)` : `${model.id} · ${window} · ${model.deployment}`
}

export function ModelPicker({ models, value, onChange, problems }: ModelPickerProps) {
  return (
    <Field label="Model" problems={models.kind === 'failed' ? [...problems, models.message] : problems}>
      <select value={value} onChange={(e) => onChange(e.target.value)} data-testid="model-select" disabled={models.kind === 'loading'}>
        <option value="">(gateway default)</option>
        {models.kind === 'ready'
          ? models.value.map((model) => (
              <option key={model.id} value={model.id} disabled={model.deployment === null}>
                {label(model)}
              </option>
            ))
          : null}
      </select>
    </Field>
  )
}
