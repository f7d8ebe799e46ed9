import { summarizeFrame } from '../../logic/inspector/frame-summary'
import type { StreamFrame } from '../../logic/inspector/stream-frames'
import { formatMs } from '../../lib/format'

function pretty(frame: StreamFrame): string | null {
  if (frame.kind !== 'chunk' && frame.kind !== 'error') return null
  try {
    return JSON.stringify(JSON.parse(frame.text), null, 2)
  } catch {
    return null
  }
}

/** One frame in full: what it carries, its exact text (line ends included) and its JSON, pretty. */
export function FrameDetail({ frame }: { frame: StreamFrame | undefined }) {
  if (frame === undefined) return <p className="muted frame-detail">Select a frame to see it in full.</p>
  const json = pretty(frame)
  return (
    <div className="frame-detail" data-testid="frame-detail">
      <div className="frame-detail__head">
        Frame {frame.seq} · {summarizeFrame(frame).text} · at {formatMs(frame.at)} · Δt {formatMs(frame.dt)} · {frame.raw.length} chars
      </div>
      <pre className="code" data-testid="frame-detail-raw">
        {frame.raw}
      </pre>
      {json !== null ? <pre className="code code--json">{json}</pre> : null}
    </div>
  )
}
