import type { ExchangeMetrics } from '../../logic/inspector/exchange'
import { formatMs, formatRate } from '../../lib/format'

interface MetricsBarProps {
  metrics: ExchangeMetrics
  frames: number
  pings: number
}

function Metric({ label, value, testId, title }: { label: string; value: string; testId: string; title?: string }) {
  return (
    <div className="metric" title={title}>
      <span className="metric__label">{label}</span>
      <span className="metric__value" data-testid={testId}>
        {value}
      </span>
    </div>
  )
}

export function MetricsBar({ metrics, frames, pings }: MetricsBarProps) {
  const tokens =
    metrics.completionTokens === null ? '—' : `${metrics.completionTokens}${metrics.tokenSource === 'chunks' ? ' (chunks)' : ''}`
  return (
    <div className="metrics" data-testid="metrics">
      <Metric label="TTFT" value={formatMs(metrics.ttftMs)} testId="metric-ttft" title="From sending to the first reply text or tool-call piece" />
      <Metric label="Duration" value={formatMs(metrics.durationMs)} testId="metric-duration" />
      <Metric
        label="Tokens"
        value={tokens}
        testId="metric-tokens"
        title="completion_tokens from the usage chunk, or the count of content chunks when there is none"
      />
      <Metric label="Rate" value={formatRate(metrics.tokensPerSecond)} testId="metric-tps" title="Tokens after the first, over the time after the first" />
      <Metric label="Frames" value={String(frames)} testId="metric-frames" />
      <Metric label="Pings" value={String(pings)} testId="metric-pings" />
    </div>
  )
}
