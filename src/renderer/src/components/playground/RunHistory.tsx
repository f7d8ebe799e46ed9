import { useExchange } from '../../hooks/use-exchange'
import type { ExchangeRun } from '../../lib/exchange-run'

/** The last message's text: the row's CSS cuts it to the room there is, the tooltip has it whole. */
function excerpt(body: Record<string, unknown>): string {
  const last: unknown = Array.isArray(body.messages) ? body.messages.at(-1) : undefined
  const content = typeof last === 'object' && last !== null && 'content' in last ? last.content : undefined
  return typeof content === 'string' && content !== '' ? content : '(empty)'
}

function HistoryItem({ run, selected, onSelect }: { run: ExchangeRun; selected: boolean; onSelect(): void }) {
  const { outcome, exchange } = useExchange(run)
  return (
    <li>
      <button
        type="button"
        className={`history__item ${selected ? 'history__item--selected' : ''}`}
        onClick={onSelect}
        data-testid="history-item"
        data-outcome={outcome.kind}
      >
        <span className={`dot dot--${outcome.kind}`} aria-hidden />
        <span>{new Date(exchange.sentAt).toLocaleTimeString(undefined, { hour12: false })}</span>
        <span className="history__text" title={excerpt(exchange.request.body)}>
          {excerpt(exchange.request.body)}
        </span>
        <span className="muted">{outcome.kind}</span>
      </button>
    </li>
  )
}

export function RunHistory({ runs, selectedId, onSelect }: { runs: readonly ExchangeRun[]; selectedId: string | null; onSelect(id: string): void }) {
  return (
    <section className="history" data-testid="run-history" aria-label="History">
      <h3>
        History <span className="muted">({runs.length}, newest first; click one to inspect it)</span>
      </h3>
      <ul>
        {runs.map((run) => (
          <HistoryItem key={run.id} run={run} selected={run.id === selectedId} onSelect={() => onSelect(run.id)} />
        ))}
      </ul>
    </section>
  )
}
