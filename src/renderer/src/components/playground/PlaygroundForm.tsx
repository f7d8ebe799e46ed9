import { DEFAULT_MODEL_ID } from '../../../../shared/api/chat-request'
import type { ModelObject } from '../../../../shared/api/chat-response'
import type { FormProblem, PlaygroundField } from '../../logic/playground/playground-request'
import type { ModelsState } from '../../hooks/use-models'
import type { PlaygroundFormState } from '../../hooks/use-playground-form'
import { MessagesEditor } from './MessagesEditor'
import { ModelPicker } from './ModelPicker'
import { MortarHeadersEditor } from './MortarHeadersEditor'
import { RequestOptions } from './RequestOptions'
import { ToolsEditor } from './ToolsEditor'

function byField(problems: readonly FormProblem[]): Partial<Record<PlaygroundField, string[]>> {
  const out: Partial<Record<PlaygroundField, string[]>> = {}
  for (const problem of problems) (out[problem.field] ??= []).push(problem.message)
  return out
}

/** The model a request from this form goes to: the one picked, else the gateway's default. */
function chosenModel(models: ModelsState, picked: string): ModelObject | undefined {
  return models.kind === 'ready' ? models.value.find((model) => model.id === (picked === '' ? DEFAULT_MODEL_ID : picked)) : undefined
}

interface PlaygroundFormProps {
  state: PlaygroundFormState
  models: ModelsState
}

export function PlaygroundForm({ state, models }: PlaygroundFormProps) {
  const { form, set } = state
  const problems = byField(state.problems)
  return (
    <div className="playground-form" data-testid="playground-form">
      {state.note !== null ? (
        <p className="playground-form__note muted" data-testid="playground-note">
          {state.note}
        </p>
      ) : null}
      <ModelPicker models={models} value={form.model} onChange={(model) => set({ model })} problems={problems.model ?? []} />
      <MessagesEditor
        system={form.system}
        messages={form.messages}
        problems={[...(problems.system ?? []), ...(problems.messages ?? [])]}
        onSystem={(system) => set({ system })}
        onMessage={state.setMessage}
        onAdd={state.addMessage}
        onRemove={state.removeMessage}
      />
      <RequestOptions form={form} toolNames={state.toolNames} problems={problems} onChange={set} defaultMaxTokens={chosenModel(models, form.model)?.default_max_tokens} />
      <ToolsEditor value={form.toolsJson} problems={problems.toolsJson ?? []} toolNames={state.toolNames} onChange={(toolsJson) => set({ toolsJson })} />
      <MortarHeadersEditor form={form} problems={problems} onChange={set} />
      {problems.form !== undefined ? (
        <ul className="form-problems" data-testid="form-problems">
          {problems.form.map((problem) => (
            <li key={problem}>{problem}</li>
          ))}
        </ul>
      ) : null}
    </div>
  )
}
