import { useCallback, useState } from 'react'
import type { CaptureMode, CaptureStatus } from '../../../shared/api/traffic'
import type { GatewayClient } from '../lib/gateway-client'
import { errorMessage } from '../logic/error-message'
import { useLoad, type Loaded } from './use-load'

export type CaptureModeState =
  | { kind: 'loading' }
  /** A gateway without the traffic API. */
  | { kind: 'unavailable' }
  | { kind: 'ready'; status: CaptureStatus; changing: CaptureMode | null; problem: string | null }

/** What a change made, for the client it was made through: the status it answered, or why not. */
interface Change {
  client: GatewayClient
  /** The status the last successful change answered; undefined until one did. */
  status: CaptureStatus | undefined
  changing: CaptureMode | null
  problem: string | null
}

/**
 * The running gateway's capture mode (GET /v1/traffic/status), and changing it at once
 * (PUT /v1/traffic/mode) — no restart. `onChanged` is told the mode the gateway now runs with
 * (the desktop app keeps it in its settings for its next start). The status is read as every
 * load is (`useLoad`); what a change answers then stands in for it, for that client only.
 */
export function useCaptureMode(client: GatewayClient, onChanged?: (mode: CaptureMode) => void): { state: CaptureModeState; change(mode: CaptureMode): void } {
  const loaded = useLoad((signal) => client.captureStatus(signal), [client])
  const [lastChange, setLastChange] = useState<Change | undefined>(undefined)
  const own = lastChange?.client === client ? lastChange : undefined
  const state = captureModeState(loaded, own)

  const change = useCallback(
    (mode: CaptureMode) => {
      const mine = (current: Change | undefined) => (current?.client === client ? current : undefined)
      setLastChange((current) => ({ client, status: mine(current)?.status, changing: mode, problem: null }))
      client.setCaptureMode(mode).then(
        (status) => {
          setLastChange({ client, status, changing: null, problem: null })
          onChanged?.(status.mode)
        },
        (error: unknown) => setLastChange((current) => ({ client, status: mine(current)?.status, changing: null, problem: errorMessage(error) })),
      )
    },
    [client, onChanged],
  )
  return { state, change }
}

function captureModeState(loaded: Loaded<CaptureStatus | null>, own: Change | undefined): CaptureModeState {
  if (own?.status === undefined) {
    if (loaded.kind === 'loading') return { kind: 'loading' }
    if (loaded.kind === 'ready' && loaded.value === null) return { kind: 'unavailable' }
  }
  const read = loaded.kind === 'ready' ? loaded.value : null
  const status = own?.status ?? read ?? unknownStatus
  const problem = own !== undefined ? own.problem : loaded.kind === 'failed' ? loaded.message : null
  return { kind: 'ready', status, changing: own?.changing ?? null, problem }
}

/** Shown when the status could not be read: the select still offers every mode. */
const unknownStatus: CaptureStatus = {
  mode: 'memory',
  limits: { max_bytes: 0, max_exchanges: 0, max_exchange_bytes: 0, retention_days: null },
  exchanges: 0,
  bytes: 0,
  evicted: 0,
}
