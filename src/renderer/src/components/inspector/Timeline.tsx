import { useEffect, useRef } from 'react'
import type { StreamFrame } from '../../logic/inspector/stream-frames'

interface TimelineProps {
  frames: readonly StreamFrame[]
  count: number
  /** The time axis ends here (ms since sending): the duration, or now while running. */
  spanMs: number
  responseAt: number | null
}

const COLORS: Record<string, string> = {
  chunk: '#3b82f6',
  done: '#10b981',
  error: '#ef4444',
  ping: '#9ca3af',
  comment: '#9ca3af',
  invalid: '#f59e0b',
  other: '#9ca3af',
  partial: '#f59e0b',
}

/**
 * A picture of the stream: one bar per frame at its arrival time, its height the frame's Δt
 * (long gaps stand out), pings short and grey, errors red. A canvas, so 10,000 frames draw
 * in one pass without 10,000 DOM nodes.
 */
export function Timeline({ frames, count, spanMs, responseAt }: TimelineProps) {
  const canvas = useRef<HTMLCanvasElement | null>(null)
  useEffect(() => {
    const element = canvas.current
    const context = element?.getContext('2d')
    if (element === null || element === undefined || context === null || context === undefined) return
    const ratio = window.devicePixelRatio || 1
    const width = element.clientWidth
    const height = element.clientHeight
    element.width = Math.max(1, Math.floor(width * ratio))
    element.height = Math.max(1, Math.floor(height * ratio))
    context.setTransform(ratio, 0, 0, ratio, 0, 0)
    context.clearRect(0, 0, width, height)
    const span = Math.max(spanMs, 1)
    const x = (ms: number) => Math.min(width - 1, (ms / span) * (width - 1))
    let maxDt = 1
    for (let i = 1; i < count; i++) maxDt = Math.max(maxDt, frames[i]?.dt ?? 0)
    if (responseAt !== null) {
      context.fillStyle = 'rgba(128,128,128,0.15)'
      context.fillRect(0, 0, x(responseAt), height)
    }
    for (let i = 0; i < count; i++) {
      const frame = frames[i]
      if (frame === undefined) continue
      const tall = frame.kind === 'ping' || frame.kind === 'comment' ? 0.25 : frame.kind === 'done' || frame.kind === 'error' ? 1 : 0.2 + 0.8 * Math.min(1, frame.dt / maxDt)
      context.fillStyle = COLORS[frame.kind] ?? '#9ca3af'
      context.fillRect(x(frame.at), height * (1 - tall), 1.5, height * tall)
    }
  }, [frames, count, spanMs, responseAt])
  return (
    <div className="timeline" title="Frames over time: bar height is the gap before the frame; the shaded part is the wait for response headers">
      <canvas ref={canvas} data-testid="timeline" data-frames={count} />
      <span className="timeline__scale muted" data-testid="timeline-scale">
        0 — {(spanMs / 1000).toFixed(2)} s
      </span>
    </div>
  )
}
