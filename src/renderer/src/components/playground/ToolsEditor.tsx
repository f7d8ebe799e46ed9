import { EXAMPLE_TOOLS_JSON } from '../../logic/playground/playground-request'

interface ToolsEditorProps {
  value: string
  problems: string[]
  toolNames: string[]
  onChange(text: string): void
}

/** The `tools` array as JSON, checked against the gateway's contract as you type. */
export function ToolsEditor({ value, problems, toolNames, onChange }: ToolsEditorProps) {
  const status = value.trim() === '' ? 'no tools' : problems.length === 0 ? `${toolNames.length} tool${toolNames.length === 1 ? '' : 's'}: ${toolNames.join(', ')}` : null
  return (
    <fieldset className="tools-editor">
      <legend>Tools (JSON)</legend>
      <textarea
        className={`code ${problems.length > 0 ? 'code--invalid' : ''}`}
        rows={value === '' ? 2 : 8}
        spellCheck={false}
        value={value}
        placeholder='[{"type": "function", "function": {"name": "…", "parameters": {…}}}]'
        onChange={(e) => onChange(e.target.value)}
        aria-invalid={problems.length > 0}
        data-testid="tools-json"
      />
      <div className="tools-editor__status">
        {status !== null ? (
          <span className="muted" data-testid="tools-status">
            {status}
          </span>
        ) : null}
        {problems.map((problem) => (
          <span key={problem} className="field__problem" role="alert" data-testid="tools-error">
            {problem}
          </span>
        ))}
        <button type="button" className="button button--small" onClick={() => onChange(EXAMPLE_TOOLS_JSON)} data-testid="tools-example">
          Insert example
        </button>
      </div>
    </fieldset>
  )
}
