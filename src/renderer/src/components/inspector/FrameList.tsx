import type { StreamFrame } from '../../../../shared/inspector/stream-frames'
import { formatDelta, splitLineEnds } from '../../lib/format'
import { VirtualList } from '../common/VirtualList'

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

/** Every frame as it arrived: arrival time, Δt, kind, and its exact text on one line. */
export function FrameList({ frames, count, selected, onSelect }: FrameListProps) {
  return (
    <div className="frames">
      <div className="frames__head" aria-hidden>
        <span>#</span>
        <span>t (ms)</span>
        <span>Δt</span>
        <span>kind</span>
        <span>raw</span>
      </div>
      <VirtualList
        testId="frame-list"
        count={count}
        rowHeight={ROW_HEIGHT}
        follow
        renderRow={(index) => {
          const frame = frames[index]
          if (frame === undefined) return null
          return (
            <button
              type="button"
              key={frame.seq}
              className={`frame frame--${frame.kind} ${selected === frame.seq ? 'frame--selected' : ''}`}
              style={{ height: ROW_HEIGHT }}
              onClick={() => onSelect(frame.seq)}
              data-testid="frame-row"
              data-kind={frame.kind}
              data-seq={frame.seq}
            >
              <span className="frame__seq">{frame.seq}</span>
              <span className="frame__at" data-testid="frame-at">
                {frame.at.toFixed(1)}
              </span>
              <span className="frame__dt" data-testid="frame-dt">
                {formatDelta(frame.dt)}
              </span>
              <span className={`kind kind--${frame.kind}`}>{frame.kind}</span>
              <span className="frame__raw" data-testid="frame-raw">
                <RawText raw={frame.raw} />
              </span>
            </button>
          )
        }}
      />
    </div>
  )
}
