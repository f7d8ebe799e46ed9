import { useCallback, useMemo, useState } from 'react'
import type { BuiltRequest } from '../logic/playground/playground-request'
import { ExchangeRun } from '../lib/exchange-run'
import type { GatewayClient } from '../lib/gateway-client'

/** Kept for the inspector's history; older runs are dropped with their frames. */
const RUNS_KEPT = 20

export interface ExchangeRuns {
  runs: readonly ExchangeRun[]
  selected: ExchangeRun | null
  send(request: BuiltRequest): ExchangeRun
  select(id: string): void
}

/** The playground's requests, newest first, and which one the inspector shows. */
export function useExchangeRuns(client: GatewayClient): ExchangeRuns {
  const [runs, setRuns] = useState<readonly ExchangeRun[]>([])
  const [selectedId, setSelectedId] = useState<string | null>(null)

  const send = useCallback(
    (request: BuiltRequest) => {
      const run = new ExchangeRun(client, { headers: request.headers, body: request.body })
      setRuns((previous) => {
        const kept = [run, ...previous].slice(0, RUNS_KEPT)
        // A dropped run may still be streaming: hang up so it does not run on unseen.
        for (const old of previous.slice(RUNS_KEPT - 1)) old.disconnect()
        return kept
      })
      setSelectedId(run.id)
      void run.send()
      return run
    },
    [client],
  )

  const selected = useMemo(() => runs.find((run) => run.id === selectedId) ?? runs[0] ?? null, [runs, selectedId])
  return useMemo(() => ({ runs, selected, send, select: setSelectedId }), [runs, selected, send])
}
