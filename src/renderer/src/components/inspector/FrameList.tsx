import { useState } from 'react'
import { summarizeFrame } from '../../logic/inspector/frame-summary'
import type { StreamFrame } from '../../logic/inspector/stream-frames'
import { formatDelta, splitLineEnds } from '../../lib/format'
import { VirtualList } from '../common/VirtualList'
import { FrameSummaryText } from './FrameSummaryText'

const ROW_HEIGHT = 22

/** The frame's text with each CR and LF shown as a small mark: nothing is hidden or added. */
function RawText({ raw }: { raw: string }) {
  return splitLineEnds(raw).map((part, i) =>
    'eol' in part ? (
      <span key={i} className="eol" aria-label={part.eol}>
        {part.eol}
      </span>
    ) : (
      <span key={i}>{part.text}</span>
    ),
  )
}

interface FrameListProps {
  frames: readonly StreamFrame[]
  /** frames.length when the snapshot was taken (the array may have grown since). */
  count: number
  selected: number | null
  onSelect(seq: number): void
}

/**
 * Every frame as it arrived: arrival time, Δt, what it carries and a readable summary of it
 * (or, one click on "raw", its exact text on one line).
 */
export function FrameList({ frames, count, selected, onSelect }: FrameListProps) {
  const [showRaw, setShowRaw] = useState(false)
  return (
    <div className="frames">
      <div className="frames__head">
        <span aria-hidden>#</span>
        <span aria-hidden>t (ms)</span>
        <span aria-hidden>Δt</span>
        <span aria-hidden>kind</span>
        <span className="frames__mode">
          {showRaw ? 'raw text' : 'summary'}
          <button
            type="button"
            className="link-button"
            onClick={() => setShowRaw((raw) => !raw)}
            title={showRaw ? 'Show what each frame carries' : 'Show each frame’s exact text'}
            data-testid="frames-toggle-raw"
            aria-pressed={showRaw}
          >
            {showRaw ? 'summary' : 'raw'}
          </button>
        </span>
      </div>
      <VirtualList
        testId="frame-list"
        count={count}
        rowHeight={ROW_HEIGHT}
        follow
        renderRow={(index) => {
          const frame = frames[index]
          if (frame === undefined) return null
          const summary = summarizeFrame(frame)
          return (
            <button
              type="button"
              key={frame.seq}
              className={`frame frame--${frame.kind} ${selected === frame.seq ? 'frame--selected' : ''}`}
              style={{ height: ROW_HEIGHT }}
              onClick={() => onSelect(frame.seq)}
              title={showRaw ? frame.raw : summary.text}
              data-testid="frame-row"
              data-kind={frame.kind}
              data-summary={summary.kind}
              data-seq={frame.seq}
            >
              <span className="frame__seq">{frame.seq}</span>
              <span className="frame__at" data-testid="frame-at">
                {frame.at.toFixed(1)}
              </span>
              <span className="frame__dt" data-testid="frame-dt">
                {formatDelta(frame.dt)}
              </span>
              <span className={`kind kind--${frame.kind} kind--${summary.kind}`} data-testid="frame-kind">
                {summary.kind}
              </span>
              {showRaw ? (
                <span className="frame__raw" data-testid="frame-raw">
                  <RawText raw={frame.raw} />
                </span>
              ) : (
                <span className="frame__raw frame__summary" data-testid="frame-summary">
                  <FrameSummaryText summary={summary} />
                </span>
              )}
            </button>
          )
        }}
      />
    </div>
  )
}
