import { useEffect, useState } from 'react'

/** `clock()` re-read every `intervalMs` while `active`: live durations of running requests. */
export function useTicking(active: boolean, clock: () => number, intervalMs = 200): number {
  const [now, setNow] = useState(clock)
  useEffect(() => {
    if (!active) return
    const timer = setInterval(() => setNow(clock()), intervalMs)
    return () => clearInterval(timer)
  }, [active, clock, intervalMs])
  return now
}
