import type { ExchangeOutcome } from '../../logic/inspector/exchange'
import { MessageText } from '../common/MessageText'

const STOPPED_LABEL: Record<Extract<ExchangeOutcome, { kind: 'stopped' }>['by'], string> = {
  this_window: 'Stopped · by this window’s Stop ([DONE] without a finish chunk)',
  stop_call: 'Stopped · by a stop call from elsewhere (Traffic, another client)',
  shutdown: 'Gateway shut down · it stopped this generation ([DONE] without a finish chunk)',
  unknown: 'Stopped · [DONE] without a finish chunk',
}

export function outcomeLabel(outcome: ExchangeOutcome): string {
  switch (outcome.kind) {
    case 'sending':
      return 'Sending…'
    case 'streaming':
      return 'Streaming…'
    case 'finished':
      return `Finished · finish_reason: ${outcome.finishReason ?? '—'}`
    case 'stopped':
      return STOPPED_LABEL[outcome.by]
    case 'client_disconnected':
      return 'Client disconnected · this window hung up before [DONE]'
    case 'upstream_error':
      return `upstream_error · ${outcome.code ?? 'error'}: ${outcome.message}`
    case 'incomplete':
      return 'Incomplete · the stream closed without [DONE]'
    case 'http_error':
      return `HTTP ${outcome.status}${outcome.code !== null ? ` · ${outcome.code}` : ''}: ${outcome.message}`
    case 'network_error':
      return `Network error: ${outcome.message}`
  }
}

export function OutcomeBadge({ outcome }: { outcome: ExchangeOutcome }) {
  return (
    <span className={`outcome outcome--${outcome.kind}`} data-testid="outcome" data-outcome={outcome.kind}
      data-stopped-by={outcome.kind === 'stopped' ? outcome.by : undefined}
      role="status"
    >
      <MessageText text={outcomeLabel(outcome)} />
    </span>
  )
}
