import { useState } from 'react'
import type { ModelServerCheck } from '../../../../shared/ipc'
import { errorMessage } from '../../logic/error-message'

interface ModelServersEditorProps {
  servers: readonly string[]
  onChange(servers: string[]): void
  test(url: string): Promise<ModelServerCheck>
}

/** Replicas of the default model's server: add, test (GET /models from main), remove. */
export function ModelServersEditor({ servers, onChange, test }: ModelServersEditorProps) {
  const [draft, setDraft] = useState('')
  const [checks, setChecks] = useState<Record<string, ModelServerCheck | 'testing'>>({})
  const runTest = (url: string) => {
    setChecks((c) => ({ ...c, [url]: 'testing' }))
    test(url).then(
      (result) => setChecks((c) => ({ ...c, [url]: result })),
      (error: unknown) =>
        setChecks((c) => ({ ...c, [url]: { ok: false, status: null, models: [], message: errorMessage(error) } })),
    )
  }
  const add = () => {
    const url = draft.trim()
    if (url === '' || servers.includes(url)) return
    onChange([...servers, url])
    setDraft('')
    runTest(url)
  }
  return (
    <div className="model-servers" data-testid="model-servers">
      {servers.length === 0 ? <p className="muted">None: the built-in scripted model answers (no GPU needed).</p> : null}
      <ul>
        {servers.map((url) => {
          const check = checks[url]
          return (
            <li key={url} className="model-servers__item" data-testid="model-server">
              <code>{url}</code>
              <button type="button" className="button button--small" onClick={() => runTest(url)}>
                Test
              </button>
              <button type="button" className="button button--small" onClick={() => onChange(servers.filter((s) => s !== url))}>
                Remove
              </button>
              {check === 'testing' ? <span className="muted">testing…</span> : null}
              {check !== undefined && check !== 'testing' ? (
                <span className={check.ok ? 'ok' : 'field__problem'} data-testid="model-server-check">
                  {check.message}
                </span>
              ) : null}
            </li>
          )
        })}
      </ul>
      <span className="inline">
        <input
          value={draft}
          placeholder="http://127.0.0.1:8000/v1"
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') add()
          }}
          aria-label="Model server base URL"
          data-testid="model-server-input"
        />
        <button type="button" className="button button--small" onClick={add} data-testid="model-server-add">
          Add replica
        </button>
      </span>
    </div>
  )
}
