import { useCallback, useMemo } from 'react'
import type { Exchange } from '../../../../shared/api/traffic'
import { inspectCaptured } from '../../logic/inspector/captured-exchange'
import { capturedAsChat, type OpenedRequest } from '../../logic/playground/captured-as-chat'
import type { ExchangeSnapshot } from '../../lib/exchange-run'
import { useTicking } from '../../hooks/use-now'
import { Inspector } from '../inspector/Inspector'

interface ExchangeDetailProps {
  exchange: Exchange
  /** The gateway's base URL, so exports print a full URL. */
  baseUrl: string
  /** The captured request as a chat request, converted when it was to another API. */
  onOpenInPlayground(request: OpenedRequest): void
  onOpenSession(session: string): void
  onExport(format: 'har' | 'jsonl', id: string): void
}

/** A captured exchange in the same inspector the playground uses, with what only capture knows. */
export function ExchangeDetail({ exchange, baseUrl, onOpenInPlayground, onOpenSession, onExport }: ExchangeDetailProps) {
  const captured = useMemo(() => inspectCaptured(exchange, baseUrl), [exchange, baseUrl])
  const snapshot: ExchangeSnapshot = {
    exchange: captured.recorded,
    frames: captured.client.frames,
    frameCount: captured.client.frames.length,
    reply: captured.client.reply,
    outcome: captured.outcome,
    stop: { kind: 'idle' },
    requestId: exchange.completion_id ?? exchange.request_id,
  }
  // While it runs, its time goes on: the timeline and metrics follow the clock.
  const running = exchange.outcome === 'in_progress'
  const startedAt = Date.parse(exchange.started_at)
  const now = useTicking(running, useCallback(() => Date.now() - startedAt, [startedAt]))
  const opened = useMemo(() => capturedAsChat(exchange), [exchange])
  const session = exchange.session
  return (
    <div className="exchange-detail" data-testid="traffic-detail" data-id={exchange.id} data-running={running}>
      <div className="exchange-detail__facts muted">
        <span data-testid="traffic-detail-client">{exchange.client.label}</span>
        {exchange.client.key_hint !== null ? <code> {exchange.client.key_hint}</code> : null}
        {' · '}
        {exchange.method} {exchange.request.url}
        {exchange.replica !== null ? ` · served by ${exchange.replica}` : exchange.deployment !== null ? ` · ${exchange.deployment}` : ''}
        {exchange.instance !== undefined ? ` · on ${exchange.instance}` : ''}
        {exchange.usage_source !== null ? ` · usage: ${exchange.usage_source}` : ''}
        {exchange.truncated !== null ? (
          <span className="field__problem" data-testid="traffic-detail-truncated">
            {' '}
            · truncated: {exchange.truncated.kept_bytes} of {exchange.truncated.original_bytes} bytes kept, {exchange.truncated.dropped_frames} frames dropped
          </span>
        ) : null}
      </div>
      <Inspector
        key={exchange.id}
        snapshot={snapshot}
        elapsed={exchange.duration_ms ?? (running ? now : 0)}
        captured={captured}
        actions={
          <>
            {/* Not openable stays visible, disabled, with the reason: the wrapper carries the tooltip a disabled button may not show. */}
            <span title={opened.ok ? (opened.convertedFrom !== null ? `Opens as a chat request, converted from ${opened.convertedFrom}` : undefined) : opened.reason} data-testid="traffic-open-playground-hint">
              <button
                type="button"
                className="button button--small"
                disabled={!opened.ok}
                onClick={opened.ok ? () => onOpenInPlayground(opened) : undefined}
                data-testid="traffic-open-playground"
                data-converted-from={opened.ok ? (opened.convertedFrom ?? undefined) : undefined}
              >
                Open in playground
              </button>
            </span>
            {session !== null ? (
              <button type="button" className="button button--small" onClick={() => onOpenSession(session)} data-testid="traffic-open-session">
                Session view
              </button>
            ) : null}
            <button type="button" className="button button--small" onClick={() => onExport('har', exchange.id)} data-testid="traffic-detail-har">
              HAR
            </button>
            <button type="button" className="button button--small" onClick={() => onExport('jsonl', exchange.id)} data-testid="traffic-detail-jsonl">
              JSONL
            </button>
          </>
        }
      />
    </div>
  )
}
