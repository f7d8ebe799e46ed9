import { useState } from 'react'
import { setupSnippets, type SetupSnippet, type SetupTarget } from '../../logic/setup-snippets'
import type { ApiKeysState } from '../../hooks/use-api-keys'
import { ChoiceButtons } from '../common/ChoiceButtons'
import { CopyButton } from '../common/CopyButton'

/**
 * Copy-ready configuration for IDE tools and SDKs, filled in for this gateway. Each says which API
 * dialect its tool needs (or that any key will do) and can create a key with it; the key just
 * created is filled in.
 */
export function SetupSnippets({ target, keys }: { target: SetupTarget; keys: ApiKeysState }) {
  const [active, setActive] = useState(setupSnippets(target)[0]?.id ?? '')
  const keyName = (title: string) => `${title} (setup)`
  const chosen = setupSnippets(target).find((s) => s.id === active)
  const created = keys.revealed !== null && chosen !== undefined && keys.revealed.name === keyName(chosen.title) ? keys.revealed.key : undefined
  const snippets = setupSnippets(created === undefined ? target : { ...target, keyPlaceholder: created })
  const snippet = snippets.find((s) => s.id === active) ?? snippets[0]
  return (
    <section className="settings__section" data-testid="settings-snippets">
      <h3>Connect your tools</h3>
      <p className="muted">
        OpenAI base URL <code data-testid="base-url">{target.baseUrl}</code>. Give each tool its own API key (API keys above, or{' '}
        <code>mortar keys create</code>).
      </p>
      <div className="inline">
        <ChoiceButtons choices={snippets.map((s) => ({ id: s.id, label: s.title }))} chosen={active} onChoose={setActive} testIdPrefix="snippet-" />
      </div>
      {snippet !== undefined ? (
        <div className="snippet">
          <div className="inline" data-testid="snippet-dialect" data-dialect={snippet.dialect}>
            <DialectNote dialect={snippet.dialect} />
            {keys.access.kind === 'allowed' ? (
              <button
                type="button"
                className="button button--small"
                disabled={keys.busy}
                onClick={() =>
                  void keys.create({ name: keyName(snippet.title), role: 'member', ...(snippet.dialect === 'any' ? {} : { dialect: snippet.dialect }) })
                }
                data-testid="snippet-create-key"
              >
                Create a key for {snippet.title}
              </button>
            ) : null}
          </div>
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

/** What key the tool needs, in words: the dialect, what that dialect means, or that any will do. */
function DialectNote({ dialect }: { dialect: SetupSnippet['dialect'] }) {
  if (dialect === 'any') {
    return <span>Any key will do: a dialect changes only chat completions, and this tool calls APIs that follow their own defaults.</span>
  }
  return (
    <span>
      Needs a key in the <strong>{dialect}</strong> dialect
      {dialect === 'openai' ? (
        <>
          {" (OpenAI's defaults: "}
          <code>stream</code> left out means JSON)
        </>
      ) : (
        <>
          {" (Mortar's own: "}
          <code>stream</code> defaults to true)
        </>
      )}
      .
    </span>
  )
}
