import express, { type Request } from 'express'
import type { z } from 'zod'
import { firstIssue, invalidFieldMessage } from '../../shared/api/first-issue'
import {
  exchangeListQuerySchema,
  exportQuerySchema,
  TRAFFIC_BASE,
  TrafficPath,
} from '../../shared/api/traffic'
import { principalOf } from '../auth/authenticate'
import { toHar } from '../capture/har'
import { scopeOf } from '../capture/exchange-filter'
import type { TrafficCapture } from '../capture/traffic-capture'
import { GatewayError, invalidRequest } from '../errors'
import { sendJson } from '../http/send-json'
import { SseWriter } from '../sse/sse-writer'
import { MORTAR_VERSION } from '../version'

const KEEPALIVE_MS = 15_000
const CURSOR = /^\d{1,15}$/

/** A route's path below the router's mount point, from the shared path table. */
const below = (path: string) => path.slice(TRAFFIC_BASE.length)

/**
 * The traffic API (docs/traffic.md), mounted at /v1/traffic behind authentication: list, fetch,
 * follow, export and clear the captured exchanges the caller's key may see.
 */
export function trafficRouter(capture: TrafficCapture): express.Router {
  const router = express.Router()
  const scope = (req: Request) => scopeOf(principalOf(req))

  router.get(below(TrafficPath.exchanges), (req, res) => {
    const query = parseQuery(exchangeListQuerySchema, req.query)
    if (query.cursor !== undefined && !CURSOR.test(query.cursor)) throw invalidRequest('Invalid `cursor`: pass `next_cursor` of the previous page.', 'cursor')
    sendJson(res, 200, capture.list(scope(req), query))
  })

  router.delete(below(TrafficPath.exchanges), (req, res) => {
    sendJson(res, 200, { deleted: capture.clear(scope(req)) })
  })

  router.get(below(TrafficPath.exchanges) + '/:id', (req, res) => {
    const id = String(req.params.id)
    const exchange = capture.get(scope(req), id)
    if (exchange === undefined) {
      throw new GatewayError('exchange_not_found', `No exchange has the ID ${id.slice(0, 100)}.`, { param: 'id' })
    }
    sendJson(res, 200, exchange)
  })

  router.get(below(TrafficPath.live), (req, res) => {
    const writer = new SseWriter(res)
    writer.open()
    void writer.comment('connected')
    const unsubscribe = capture.live.subscribe(scope(req), res)
    const keepalive = setInterval(() => void writer.comment('ping'), KEEPALIVE_MS)
    res.on('close', () => {
      clearInterval(keepalive)
      unsubscribe()
    })
  })

  router.get(below(TrafficPath.export), (req, res) => {
    const query = parseQuery(exportQuerySchema, req.query)
    const exchanges = capture.select(scope(req), query, query.ids)
    const stamp = new Date().toISOString().replace(/[:.]/g, '-')
    if (query.format === 'har') {
      res.setHeader('Content-Disposition', `attachment; filename="mortar-traffic-${stamp}.har"`)
      sendJson(res, 200, toHar(exchanges, MORTAR_VERSION))
      return
    }
    const text = exchanges.map((exchange) => JSON.stringify(exchange)).join('\n') + (exchanges.length > 0 ? '\n' : '')
    res.statusCode = 200
    res.setHeader('Content-Type', 'application/x-ndjson; charset=utf-8')
    res.setHeader('Content-Disposition', `attachment; filename="mortar-traffic-${stamp}.jsonl"`)
    res.setHeader('Content-Length', Buffer.byteLength(text))
    res.end(text)
  })

  router.get(below(TrafficPath.status), (_req, res) => sendJson(res, 200, capture.status()))
  return router
}

function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query)
  if (parsed.success) return parsed.data
  // The query parameter's name: `status`, not the index of the bad item in its list.
  const issue = firstIssue(parsed.error, { depth: 1 })
  throw invalidRequest(invalidFieldMessage(issue, 'query'), issue.param)
}
