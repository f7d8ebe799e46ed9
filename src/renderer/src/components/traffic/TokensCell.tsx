import type { Usage } from '../../../../shared/api/chat-response'

/** Prompt / completion tokens; `~` marks Mortar's estimate, the tooltip says whose count it is. */
export function TokensCell({ usage, source }: { usage: Usage | null; source: 'upstream' | 'estimate' | null }) {
  return (
    <span title={source === null ? '' : `usage: ${source === 'upstream' ? "the model server's count" : "Mortar's estimate (~)"}`} data-testid="traffic-tokens">
      {usage === null ? '—' : `${usage.prompt_tokens} / ${usage.completion_tokens}${source === 'estimate' ? ' ~' : ''}`}
    </span>
  )
}
