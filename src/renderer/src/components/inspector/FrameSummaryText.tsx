import { partValue, type FrameSummary } from '../../logic/inspector/frame-summary'

/**
 * A frame's summary as a line of parts. The first part's kind is already in the kind column, so
 * only what it says is written; further parts (a finish chunk that also carries usage) are named.
 */
export function FrameSummaryText({ summary }: { summary: FrameSummary }) {
  return summary.parts.map((part, i) => (
    <span key={i} className={`summary-part summary-part--${part.kind}`}>
      {i > 0 ? <span className="summary-part__kind">{part.kind}</span> : null}
      {partValue(part)}
    </span>
  ))
}
