import { useState } from 'react'
import { rawBodyShown } from '../../logic/inspector/raw-body'

/** A response body as received; past a size that would hold the page, its start and a button for the rest. */
export function RawBody({ text, waiting }: { text: string | null; waiting: boolean }) {
  const [all, setAll] = useState(false)
  if (text === null) {
    return (
      <pre className="code raw-body" data-testid="raw-body">
        {waiting ? 'Waiting for the response…' : ''}
      </pre>
    )
  }
  const { shown, hidden } = rawBodyShown(text, all)
  return (
    <>
      <pre className="code raw-body" data-testid="raw-body">
        {shown}
      </pre>
      {hidden > 0 ? (
        <p className="muted" data-testid="raw-body-cut">
          {hidden.toLocaleString('en-US')} more characters not shown.{' '}
          <button type="button" className="button button--small" onClick={() => setAll(true)} data-testid="raw-body-all">
            Show all
          </button>
        </p>
      ) : null}
    </>
  )
}
