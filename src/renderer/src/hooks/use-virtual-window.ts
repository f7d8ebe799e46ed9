import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react'

export interface VirtualWindow {
  containerRef: React.RefObject<HTMLDivElement | null>
  onScroll(): void
  /** Rows [start, end) are rendered; the rest is empty space of the right height. */
  start: number
  end: number
  totalHeight: number
  /** The view sticks to the bottom as rows are added, until the user scrolls up. */
  following: boolean
  scrollToEnd(): void
}

/**
 * Windowing for long lists with rows of one fixed height: only what is visible (plus a margin)
 * is in the DOM, so 10,000 frames or rows cost what 40 do.
 */
export function useVirtualWindow(count: number, rowHeight: number, follow: boolean, overscan = 10): VirtualWindow {
  const containerRef = useRef<HTMLDivElement | null>(null)
  const [scrollTop, setScrollTop] = useState(0)
  const [height, setHeight] = useState(400)
  const [following, setFollowing] = useState(true)

  useEffect(() => {
    const element = containerRef.current
    if (element === null) return
    const observer = new ResizeObserver(() => setHeight(element.clientHeight))
    observer.observe(element)
    setHeight(element.clientHeight)
    return () => observer.disconnect()
  }, [])

  const onScroll = useCallback(() => {
    const element = containerRef.current
    if (element === null) return
    setScrollTop(element.scrollTop)
    setFollowing(element.scrollTop + element.clientHeight >= element.scrollHeight - rowHeight)
  }, [rowHeight])

  // Follow new rows: scroll before paint so the list never flashes the old position.
  useLayoutEffect(() => {
    const element = containerRef.current
    if (element === null || !follow || !following) return
    element.scrollTop = element.scrollHeight
  }, [count, follow, following])

  const scrollToEnd = useCallback(() => {
    setFollowing(true)
    const element = containerRef.current
    if (element !== null) element.scrollTop = element.scrollHeight
  }, [])

  const start = Math.max(0, Math.floor(scrollTop / rowHeight) - overscan)
  const end = Math.min(count, Math.ceil((scrollTop + height) / rowHeight) + overscan)
  return { containerRef, onScroll, start, end, totalHeight: count * rowHeight, following, scrollToEnd }
}
