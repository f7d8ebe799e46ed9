import { useState } from 'react'
import { setupSnippets, type SetupTarget } from '../../../../shared/setup-snippets'
import { CopyButton } from '../common/CopyButton'

/** Copy-ready configuration for IDE tools and SDKs, filled in for this gateway. */
export function SetupSnippets({ target }: { target: SetupTarget }) {
  const snippets = setupSnippets(target)
  const [active, setActive] = useState(snippets[0]?.id ?? '')
  const snippet = snippets.find((s) => s.id === active) ?? snippets[0]
  return (
    <section className="settings__section" data-testid="settings-snippets">
      <h3>Connect your tools</h3>
      <p className="muted">
        OpenAI base URL <code data-testid="base-url">{target.baseUrl}</code>. Give each tool its own API key (API keys above, or{' '}
        <code>mortar keys create</code>).
      </p>
      <div className="inline">
        {snippets.map((s) => (
          <button
            key={s.id}
            type="button"
            className={`button button--small ${s.id === active ? 'button--active' : ''}`}
            onClick={() => setActive(s.id)}
            data-testid={`snippet-${s.id}`}
          >
            {s.title}
          </button>
        ))}
      </div>
      {snippet !== undefined ? (
        <div className="snippet">
          <div className="inline">
            <span className="muted">{snippet.where}</span>
            <span className="spacer" />
            <CopyButton text={snippet.text} testId="snippet-copy" />
          </div>
          <pre className="code" data-testid="snippet-text">
            {snippet.text}
          </pre>
        </div>
      ) : null}
    </section>
  )
}
