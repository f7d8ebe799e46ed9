import type { RequestHandler } from 'express'
import { principalOf } from '../auth/authenticate'
import { SseWriter } from '../sse/sse-writer'
import type { TelemetryBus } from '../telemetry/telemetry-bus'

const KEEPALIVE_MS = 15_000

/**
 * GET /v1/telemetry[?session=…&model=…]: the caller's organization's serving events, live, as
 * server-sent events (docs/telemetry.md). Only events from now on: nothing is stored.
 */
export function telemetryStream(bus: TelemetryBus): RequestHandler {
  return (req, res) => {
    const { session, model } = req.query
    const writer = new SseWriter(res)
    writer.open()
    void writer.comment('connected')
    const unsubscribe = bus.subscribe(
      principalOf(req).org,
      { session: typeof session === 'string' ? session : undefined, model: typeof model === 'string' ? model : undefined },
      res,
    )
    const keepalive = setInterval(() => void writer.comment('ping'), KEEPALIVE_MS)
    res.on('close', () => {
      clearInterval(keepalive)
      unsubscribe()
    })
  }
}
