import { useCallback, useEffect, useRef, useState } from 'react'
import type { TelemetryEvent } from '../../../shared/api/telemetry'
import { SseDecoder } from '../../../shared/sse/sse-decoder'
import { applyTelemetryEvent, emptyTraffic, parseTelemetryEvent, type TrafficState } from '../logic/telemetry/traffic-table'
import { GatewayHttpError, type GatewayClient } from '../lib/gateway-client'

export type TrafficConnection =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'reconnecting'; reason: string; inMs: number }
  /** The gateway refused the key (401): retrying the same key cannot help, so it stops. */
  | { kind: 'refused'; reason: string }

/** Events are folded in batches: a burst of requests is one render, not one per event. */
const BATCH_MS = 100
const RETRY_MIN_MS = 1_000
const RETRY_MAX_MS = 15_000

export interface Traffic {
  state: TrafficState
  connection: TrafficConnection
  stop(id: string): Promise<string>
  clear(): void
}

/**
 * GET /v1/telemetry, live, for as long as the app is open (so the table is complete whichever
 * tab is showing), reconnecting with backoff when the stream ends — but not after a 401: the
 * key is dead, and the client has told the connection, which returns to the key prompt.
 */
export function useTraffic(client: GatewayClient): Traffic {
  const [state, setState] = useState<TrafficState>(emptyTraffic)
  const [connection, setConnection] = useState<TrafficConnection>({ kind: 'connecting' })
  const pending = useRef<TelemetryEvent[]>([])

  useEffect(() => {
    const controller = new AbortController()
    let timer: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      timer = undefined
      const events = pending.current
      pending.current = []
      if (events.length > 0) setState((current) => events.reduce((s, e) => applyTelemetryEvent(s, e), current))
    }
    const enqueue = (event: TelemetryEvent) => {
      pending.current.push(event)
      timer ??= setTimeout(flush, BATCH_MS)
    }

    const subscribe = async () => {
      let delay = RETRY_MIN_MS
      while (!controller.signal.aborted) {
        let reason = 'the stream ended'
        try {
          const body = await client.openTelemetry(controller.signal)
          setConnection({ kind: 'live' })
          delay = RETRY_MIN_MS
          const decoder = new SseDecoder()
          const reader = body.getReader()
          for (;;) {
            const { done, value } = await reader.read()
            if (done) break
            for (const event of decoder.push(value)) {
              if (event.kind === 'comment' && event.text.startsWith('dropped')) reason = `the gateway dropped this view (${event.text})`
              if (event.kind !== 'data') continue
              const parsed = parseTelemetryEvent(event.data)
              if (parsed !== undefined) enqueue(parsed)
            }
          }
        } catch (error) {
          if (controller.signal.aborted) return
          if (error instanceof GatewayHttpError && error.status === 401) {
            setConnection({ kind: 'refused', reason: error.message })
            return
          }
          reason = error instanceof Error ? error.message : String(error)
        }
        if (controller.signal.aborted) return
        setConnection({ kind: 'reconnecting', reason, inMs: delay })
        await new Promise((resolve) => setTimeout(resolve, delay))
        delay = Math.min(delay * 2, RETRY_MAX_MS)
      }
    }
    void subscribe()
    return () => {
      controller.abort()
      clearTimeout(timer)
    }
  }, [client])

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
