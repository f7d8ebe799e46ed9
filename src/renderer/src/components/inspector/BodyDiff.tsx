import type { DiffGap, DiffLine } from '../../logic/inspector/line-diff'

/** A folded line diff: removed lines red with "-", added green with "+", long unchanged runs as a gap. */
export function BodyDiff({ lines, testId }: { lines: ReadonlyArray<DiffLine | DiffGap>; testId: string }) {
  return (
    <pre className="code diff" data-testid={testId}>
      {lines.map((line, i) =>
        line.op === 'gap' ? (
          <span key={i} className="diff__gap">
            {`… ${line.count} unchanged line${line.count === 1 ? '' : 's'}\n`}
          </span>
        ) : (
          <span key={i} className={`diff__line diff__line--${line.op}`} data-op={line.op}>
            {`${line.op === 'removed' ? '-' : line.op === 'added' ? '+' : ' '} ${line.text}\n`}
          </span>
        ),
      )}
    </pre>
  )
}
