import { useState } from 'react'
import { MessageText } from './common/MessageText'

interface KeyPromptProps {
  problem: string | null
  onSubmit(key: string): void
}

/** A browser tab with no credential yet: opened without the UI link `mortar serve` prints, or with a used one. */
export function KeyPrompt({ problem, onSubmit }: KeyPromptProps) {
  const [key, setKey] = useState('')
  return (
    <form
      className="key-prompt"
      data-testid="key-prompt"
      onSubmit={(e) => {
        e.preventDefault()
        if (key.trim() !== '') onSubmit(key.trim())
      }}
    >
      <h2>Connect to this gateway</h2>
      <p>
        Open the <strong>UI</strong> link <code>mortar serve</code> printed (it signs in one tab, once), or paste an API
        key. It is kept in this tab only, until the tab closes.
      </p>
      <input
        type="password"
        autoComplete="off"
        placeholder="mk_live_…"
        value={key}
        onChange={(e) => setKey(e.target.value)}
        aria-label="API key"
        data-testid="key-input"
      />
      <button type="submit" className="button button--primary" disabled={key.trim() === ''} data-testid="key-submit">
        Connect
      </button>
      {problem !== null ? (
        <p className="field__problem" role="alert" data-testid="key-error">
          <MessageText text={problem} />
        </p>
      ) : null}
    </form>
  )
}
