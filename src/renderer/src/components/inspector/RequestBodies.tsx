import { useMemo, useState } from 'react'
import { diffLines, foldUnchanged, hasChanges, prettyJsonText } from '../../logic/inspector/line-diff'
import { BodyDiff } from './BodyDiff'
import { ChoiceButtons } from '../common/ChoiceButtons'

type Shown = 'received' | 'model' | 'diff'

interface RequestBodiesProps {
  /** The body exactly as the client sent it. */
  received: string
  /** What the model server received after tool selection and the optimizer; null when no generation started. */
  model: string | null
}

/** The request body as received and as the model saw it, with a diff when they differ in content. */
export function RequestBodies({ received, model }: RequestBodiesProps) {
  const diff = useMemo(() => (model === null ? null : diffLines(prettyJsonText(received), prettyJsonText(model))), [received, model])
  const changed = diff !== null && hasChanges(diff)
  const [shown, setShown] = useState<Shown>(changed ? 'diff' : 'received')
  const views: ReadonlyArray<{ id: Shown; label: string; disabled: boolean }> = [
    { id: 'received', label: 'As received', disabled: false },
    { id: 'model', label: 'As the model saw it', disabled: model === null },
    { id: 'diff', label: 'Diff', disabled: !changed },
  ]
  return (
    <div className="request-bodies">
      <div className="export__bar">
        <ChoiceButtons choices={views} chosen={shown} onChoose={setShown} testIdPrefix="request-body-" />
        <span className="muted" data-testid="request-body-note">
          {model === null
            ? 'No generation started, so the model saw nothing.'
            : changed
              ? 'Tool selection or the optimizer changed what the model saw.'
              : 'The model saw the same content (JSON formatting aside).'}
        </span>
      </div>
      {shown === 'diff' && diff !== null ? (
        <BodyDiff lines={foldUnchanged(diff)} testId="request-body-diff" />
      ) : (
        <pre className="code" data-testid="request-body">
          {prettyJsonText(shown === 'model' && model !== null ? model : received)}
        </pre>
      )}
    </div>
  )
}
