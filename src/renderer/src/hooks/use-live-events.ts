import { useEffect, useState } from 'react'
import { followEventStream, type StreamConnection } from '../lib/follow-event-stream'
import { useLatest } from './use-latest'

/** Live events are folded in batches: a burst of requests is one render, not one per event. */
const BATCH_MS = 100

/**
 * Follows a server-sent event stream of the gateway while mounted (again whenever `open`
 * changes), reconnecting as `followEventStream` does. Each `data:` payload goes through `parse`;
 * what it returns undefined for (an event of a newer gateway) is dropped. `onBatch` receives the
 * parsed events in order, at most once per BATCH_MS.
 */
export function useLiveEvents<E>(
  open: (signal: AbortSignal) => Promise<ReadableStream<Uint8Array>>,
  parse: (data: string) => E | undefined,
  onBatch: (events: E[]) => void,
): StreamConnection {
  const [connection, setConnection] = useState<StreamConnection>({ kind: 'connecting' })
  const onBatchRef = useLatest(onBatch)

  useEffect(() => {
    const controller = new AbortController()
    let pending: E[] = []
    let batch: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      batch = undefined
      const events = pending
      pending = []
      if (events.length > 0) onBatchRef.current(events)
    }
    void followEventStream({
      open,
      onData: (data) => {
        const event = parse(data)
        if (event === undefined) return
        pending.push(event)
        batch ??= setTimeout(flush, BATCH_MS)
      },
      onConnection: setConnection,
      signal: controller.signal,
    })
    return () => {
      controller.abort()
      clearTimeout(batch)
    }
  }, [open, parse, onBatchRef])

  return connection
}
