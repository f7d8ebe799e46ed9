import type { SessionPrefixes } from '../../../../shared/api/session-prefixes'
import { formatClock } from '../../lib/format'
import { cacheVerdict, sharedText } from '../../lib/prefix-share'

interface SessionViewProps {
  prefixes: SessionPrefixes
  onSelect(id: string): void
  onClose(): void
}

/**
 * A session's exchanges in order, each prompt against the previous one: how many leading tokens
 * they share (what a model server's prefix cache can reuse), where they first differ, and what
 * the server said it served from its cache.
 */
export function SessionView({ prefixes, onSelect, onClose }: SessionViewProps) {
  const tokensOf = new Map(prefixes.data.map((entry) => [entry.id, entry.prompt_tokens]))
  return (
    <section className="session-view" data-testid="session-view" data-session={prefixes.session}>
      <header className="inspector__head">
        <h3>
          Session <code>{prefixes.session}</code>
        </h3>
        <span className="muted">
          {prefixes.data.length} exchange{prefixes.data.length === 1 ? '' : 's'}, oldest first · shared prefix: leading tokens of the rendered prompt equal to
          the previous one&apos;s
        </span>
        <span className="spacer" />
        <button type="button" className="button button--small" onClick={onClose} data-testid="session-close">
          Close
        </button>
      </header>
      <ol className="session-view__list">
        {prefixes.data.map((entry, index) => {
          const verdict = cacheVerdict(entry)
          return (
            <li key={entry.id} className="session-entry" data-testid="session-entry" data-id={entry.id}>
              <div className="session-entry__head">
                <span className="muted">#{index + 1}</span>
                <button type="button" className="link-button" onClick={() => onSelect(entry.id)} data-testid="session-entry-open">
                  {formatClock(entry.started_at)}
                </button>
                <span className="muted">{entry.model ?? '—'}</span>
                <span>
                  prompt <strong data-testid="session-prompt-tokens">{entry.prompt_tokens ?? '—'}</strong> tokens
                  {entry.tokenizer !== null && !entry.exact ? <span className="muted"> (estimate, {entry.tokenizer})</span> : null}
                </span>
                <span>
                  shared with the previous: <strong data-testid="session-shared">{sharedText(entry, entry.previous_id === null ? null : (tokensOf.get(entry.previous_id) ?? null))}</strong>
                </span>
                <span className={verdict === null ? 'muted' : `cache cache--${verdict}`} data-testid="session-cached" data-verdict={verdict ?? ''}>
                  server cached: {entry.cached_tokens ?? 'not reported'}
                </span>
                {entry.note !== null ? (
                  <span className="muted" data-testid="session-note">
                    {entry.note}
                  </span>
                ) : null}
              </div>
              {entry.first_difference !== null ? (
                <pre className="code diff" data-testid="session-diff">
                  <span className="diff__gap">{`first difference at character ${entry.first_difference.offset}, after:\n`}</span>
                  <span className="diff__line">{`  …${entry.first_difference.before}\n`}</span>
                  <span className="diff__line diff__line--removed" data-testid="session-diff-previous">{`- ${entry.first_difference.previous}\n`}</span>
                  <span className="diff__line diff__line--added" data-testid="session-diff-current">{`+ ${entry.first_difference.current}\n`}</span>
                </pre>
              ) : entry.previous_id !== null && entry.shared_prefix_tokens !== null ? (
                <p className="muted session-entry__extends" data-testid="session-extends">
                  Extends the previous prompt unchanged: all of it can come from the cache.
                </p>
              ) : null}
            </li>
          )
        })}
      </ol>
    </section>
  )
}
