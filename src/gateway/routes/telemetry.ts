import type { RequestHandler } from 'express'
import { principalOf } from '../auth/authenticate'
import type { KeyBoundStreams } from '../auth/key-bound-streams'
import { openKeyBoundStream } from '../sse/key-bound-stream'
import type { TelemetryBus } from '../telemetry/telemetry-bus'

/**
 * GET /v1/telemetry[?session=…&model=…]: the caller's organization's serving events, live, as
 * server-sent events (docs/telemetry.md). Only events from now on: nothing is stored. The stream
 * lasts as long as its key works: when the key is revoked, rotated away or expires, one error event
 * says so (the same 401 error a new request would get) and the stream ends.
 */
export function telemetryStream(bus: TelemetryBus, keyBound: KeyBoundStreams): RequestHandler {
  return (req, res) => {
    const { session, model } = req.query
    const principal = principalOf(req)
    // First, so that a key or organization over its cap gets a plain 429, before any SSE header.
    const unsubscribe = bus.subscribe(
      principal,
      { session: typeof session === 'string' ? session : undefined, model: typeof model === 'string' ? model : undefined },
      res,
    )
    openKeyBoundStream(res, principal, keyBound, unsubscribe)
  }
}
