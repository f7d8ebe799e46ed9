import type { ReactNode } from 'react'
import { useVirtualWindow } from '../../hooks/use-virtual-window'

interface VirtualListProps {
  count: number
  rowHeight: number
  renderRow(index: number): ReactNode
  testId: string
  /** Keep the newest row in view as rows are added (until the user scrolls up). */
  follow?: boolean
  className?: string
  /**
   * Rendered inside the scrolling box, above the rows, sticking to its top: a header row that
   * scrolls sideways with the rows, so its titles stay over their columns.
   */
  header?: ReactNode
}

/** A scrolling list that renders only its visible rows (all rows the same height). */
export function VirtualList({ count, rowHeight, renderRow, testId, follow = false, className, header }: VirtualListProps) {
  const { containerRef, onScroll, start, end, totalHeight, following, scrollToEnd } = useVirtualWindow(count, rowHeight, follow)
  const rows: ReactNode[] = []
  for (let i = start; i < end; i++) rows.push(renderRow(i))
  return (
    <div className={`virtual-list ${className ?? ''}`} data-testid={testId}>
      <div className="virtual-list__scroll" ref={containerRef} onScroll={onScroll}>
        {header !== undefined ? <div className="virtual-list__header">{header}</div> : null}
        <div style={{ height: totalHeight, position: 'relative' }}>
          <div style={{ position: 'absolute', top: start * rowHeight, left: 0, right: 0 }}>{rows}</div>
        </div>
      </div>
      {follow && !following && count > 0 ? (
        <button type="button" className="virtual-list__jump" onClick={scrollToEnd} data-testid={`${testId}-jump`}>
          ↓ newest
        </button>
      ) : null}
    </div>
  )
}
