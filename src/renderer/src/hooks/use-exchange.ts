import { useSyncExternalStore } from 'react'
import type { ExchangeRun, ExchangeSnapshot } from '../lib/exchange-run'

/** The run's latest snapshot; re-renders at most every few dozen milliseconds while it streams. */
export function useExchange(run: ExchangeRun): ExchangeSnapshot {
  return useSyncExternalStore(run.subscribe, run.snapshot)
}
