import { useCallback, useEffect, useState } from 'react'
import type { CaptureMode, CaptureStatus } from '../../../shared/api/traffic'
import type { GatewayClient } from '../lib/gateway-client'
import { errorMessage } from '../logic/error-message'

export type CaptureModeState =
  | { kind: 'loading' }
  /** A gateway without the traffic API. */
  | { kind: 'unavailable' }
  | { kind: 'ready'; status: CaptureStatus; changing: CaptureMode | null; problem: string | null }

/**
 * The running gateway's capture mode (GET /v1/traffic/status), and changing it at once
 * (PUT /v1/traffic/mode) — no restart. `onChanged` is told the mode the gateway now runs with
 * (the desktop app keeps it in its settings for its next start).
 */
export function useCaptureMode(client: GatewayClient, onChanged?: (mode: CaptureMode) => void): { state: CaptureModeState; change(mode: CaptureMode): void } {
  const [state, setState] = useState<CaptureModeState>({ kind: 'loading' })
  useEffect(() => {
    const controller = new AbortController()
    client.captureStatus(controller.signal).then(
      (status) => setState(status === null ? { kind: 'unavailable' } : { kind: 'ready', status, changing: null, problem: null }),
      (error: unknown) => {
        if (!controller.signal.aborted) setState({ kind: 'ready', status: unknownStatus, changing: null, problem: errorMessage(error) })
      },
    )
    return () => controller.abort()
  }, [client])

  const change = useCallback(
    (mode: CaptureMode) => {
      setState((current) => (current.kind === 'ready' ? { ...current, changing: mode, problem: null } : current))
      client.setCaptureMode(mode).then(
        (status) => {
          setState({ kind: 'ready', status, changing: null, problem: null })
          onChanged?.(status.mode)
        },
        (error: unknown) =>
          setState((current) =>
            current.kind === 'ready' ? { ...current, changing: null, problem: errorMessage(error) } : current,
          ),
      )
    },
    [client, onChanged],
  )
  return { state, change }
}

/** Shown when the status could not be read: the select still offers every mode. */
const unknownStatus: CaptureStatus = {
  mode: 'memory',
  limits: { max_bytes: 0, max_exchanges: 0, max_exchange_bytes: 0, retention_days: null },
  exchanges: 0,
  bytes: 0,
  evicted: 0,
}
