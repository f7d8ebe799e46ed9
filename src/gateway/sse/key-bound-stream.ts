import type { ServerResponse } from 'node:http'
import { keyRefused } from '../auth/authenticate'
import type { KeyBoundStreams } from '../auth/key-bound-streams'
import type { Principal } from '../auth/key-store'
import { SseWriter } from './sse-writer'

const KEEPALIVE_MS = 15_000

/**
 * Opens a long-lived event stream that is not a generation (telemetry, traffic): SSE headers and
 * a `: connected` comment now, a `: ping` every 15 s so idle proxies keep it, and an end when its
 * key stops working — one error event (the 401 a new request would get), then the end. `onClose`
 * runs once the connection closes, however it ended.
 */
export function openKeyBoundStream(res: ServerResponse, principal: Principal, keyBound: KeyBoundStreams, onClose: () => void): SseWriter {
  const writer = new SseWriter(res)
  writer.open()
  void writer.comment('connected')
  const unbind = keyBound.add(principal.keyId, (validity) => {
    void writer.data(JSON.stringify(keyRefused(validity === 'unknown' ? 'invalid' : validity).toEnvelope()))
    writer.abandon()
  })
  const keepalive = setInterval(() => void writer.comment('ping'), KEEPALIVE_MS)
  res.on('close', () => {
    clearInterval(keepalive)
    unbind()
    onClose()
  })
  return writer
}
