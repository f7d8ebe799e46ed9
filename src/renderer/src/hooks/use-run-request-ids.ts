import { useEffect, useState } from 'react'
import type { ExchangeRun } from '../lib/exchange-run'

const EMPTY: ReadonlyMap<string, string> = new Map()

/** The gateway's completion ID → run ID, for the runs whose response headers are in. */
export function useRunRequestIds(runs: readonly ExchangeRun[]): ReadonlyMap<string, string> {
  const [ids, setIds] = useState<ReadonlyMap<string, string>>(EMPTY)
  useEffect(() => {
    const compute = () => {
      const next = new Map<string, string>()
      for (const run of runs) {
        const requestId = run.snapshot().requestId
        if (requestId !== null) next.set(requestId, run.id)
      }
      setIds((previous) => (sameMap(previous, next) ? previous : next))
    }
    compute()
    const unsubscribes = runs.map((run) => run.subscribe(compute))
    return () => unsubscribes.forEach((unsubscribe) => unsubscribe())
  }, [runs])
  return ids
}

function sameMap(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false
  for (const [key, value] of a) if (b.get(key) !== value) return false
  return true
}
