// Reads a server-sent event stream over fetch for as long as `signal` allows, reconnecting with
// backoff when it ends — but not after a 401: the key is dead, and the client has already told
// the connection, which returns to the key prompt. EventSource cannot send Authorization.
import { SseDecoder } from '../../../shared/sse/sse-decoder'
import { GatewayHttpError } from './gateway-client'
import { errorMessage } from '../logic/error-message'

export type StreamConnection =
  | { kind: 'connecting' }
  | { kind: 'live' }
  | { kind: 'reconnecting'; reason: string; inMs: number }
  /** The gateway refused the key (401): retrying the same key cannot help, so it stops. */
  | { kind: 'refused'; reason: string }

const RETRY_MIN_MS = 1_000
const RETRY_MAX_MS = 15_000

export interface FollowOptions {
  open(signal: AbortSignal): Promise<ReadableStream<Uint8Array>>
  /** Each `data:` payload, in order. */
  onData(data: string): void
  onConnection(connection: StreamConnection): void
  signal: AbortSignal
}

export async function followEventStream({ open, onData, onConnection, signal }: FollowOptions): Promise<void> {
  let delay = RETRY_MIN_MS
  while (!signal.aborted) {
    let reason = 'the stream ended'
    try {
      const body = await open(signal)
      onConnection({ kind: 'live' })
      delay = RETRY_MIN_MS
      const decoder = new SseDecoder()
      const reader = body.getReader()
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        for (const event of decoder.push(value)) {
          if (event.kind === 'comment' && event.text.startsWith('dropped')) reason = `the gateway dropped this view (${event.text})`
          if (event.kind === 'data') onData(event.data)
        }
      }
    } catch (error) {
      if (signal.aborted) return
      if (error instanceof GatewayHttpError && error.status === 401) {
        onConnection({ kind: 'refused', reason: error.message })
        return
      }
      reason = errorMessage(error)
    }
    if (signal.aborted) return
    onConnection({ kind: 'reconnecting', reason, inMs: delay })
    await new Promise((resolve) => setTimeout(resolve, delay))
    delay = Math.min(delay * 2, RETRY_MAX_MS)
  }
}
