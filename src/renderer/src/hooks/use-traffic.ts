import { useCallback, useState } from 'react'
import type { TelemetryEvent } from '../../../shared/api/telemetry'
import type { GatewayClient } from '../lib/gateway-client'
import type { StreamConnection } from '../lib/follow-event-stream'
import { applyTelemetryEvent, emptyTraffic, parseTelemetryEvent, type TrafficState } from '../logic/telemetry/traffic-table'
import { useLiveEvents } from './use-live-events'

export interface Traffic {
  state: TrafficState
  connection: StreamConnection
  stop(id: string): Promise<string>
  clear(): void
}

/**
 * GET /v1/telemetry, live, for as long as the app is open (so the table is complete whichever
 * tab is showing, and the header's running count is true).
 */
export function useTraffic(client: GatewayClient): Traffic {
  const [state, setState] = useState<TrafficState>(emptyTraffic)
  const open = useCallback((signal: AbortSignal) => client.openTelemetry(signal), [client])
  const connection = useLiveEvents(open, parseTelemetryEvent, (events: TelemetryEvent[]) =>
    setState((current) => events.reduce((s, e) => applyTelemetryEvent(s, e), current)),
  )

  const stop = useCallback(
    async (id: string) => {
      const { status, body } = await client.stopGeneration(id)
      return status === 200 && body.stopped ? 'stopped' : 'not running any more'
    },
    [client],
  )
  const clear = useCallback(() => setState(emptyTraffic), [])

  return { state, connection, stop, clear }
}
