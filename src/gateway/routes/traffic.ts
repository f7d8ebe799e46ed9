import express, { type Request } from 'express'
import type { z } from 'zod'
import { firstIssue, invalidFieldMessage } from '../../shared/api/first-issue'
import {
  exchangeListQuerySchema,
  exportQuerySchema,
  setCaptureModeRequestSchema,
  TRAFFIC_BASE,
  TrafficPath,
} from '../../shared/api/traffic'
import { principalOf } from '../auth/authenticate'
import type { KeyBoundStreams } from '../auth/key-bound-streams'
import { toHar } from '../capture/har'
import { scopeOf } from '../capture/exchange-filter'
import type { TrafficCapture } from '../capture/traffic-capture'
import { GatewayError, invalidRequest } from '../errors'
import { readJsonBody } from '../http/read-json-body'
import { sendJson } from '../http/send-json'
import { openKeyBoundStream } from '../sse/key-bound-stream'
import { MORTAR_VERSION } from '../version'

/** A local store's cursor, or the cluster's (docs/cluster.md). */
const CURSOR = /^(\d{1,15}|c\d{1,15}:[A-Za-z0-9_-]{1,100})$/

/** A route's path below the router's mount point, from the shared path table. */
const below = (path: string) => path.slice(TRAFFIC_BASE.length)

/**
 * The traffic API (docs/traffic.md), mounted at /v1/traffic behind authentication: list, fetch,
 * follow, export and clear the captured exchanges the caller's key may see; owner and admin keys
 * may also change the capture mode. Its event streams last as long as their key works, like the
 * telemetry stream.
 */
export function trafficRouter(capture: TrafficCapture, keyBound: KeyBoundStreams): express.Router {
  const router = express.Router()
  const scope = (req: Request) => scopeOf(principalOf(req))

  router.get(below(TrafficPath.exchanges), async (req, res) => {
    const query = parseQuery(exchangeListQuerySchema, req.query)
    if (query.cursor !== undefined && !CURSOR.test(query.cursor)) throw invalidRequest('Invalid `cursor`: pass `next_cursor` of the previous page.', 'cursor')
    sendJson(res, 200, await capture.listEverywhere(scope(req), query))
  })

  router.delete(below(TrafficPath.exchanges), async (req, res) => {
    sendJson(res, 200, { deleted: await capture.clearEverywhere(scope(req)) })
  })

  router.get(below(TrafficPath.exchanges) + '/:id', async (req, res) => {
    const id = String(req.params.id)
    const exchange = await capture.getEverywhere(scope(req), id)
    if (exchange === undefined) throw notFound(id)
    sendJson(res, 200, exchange)
  })

  router.get(below(TrafficPath.exchanges) + '/:id/live', (req, res) => {
    const principal = principalOf(req)
    const id = String(req.params.id)
    const target = capture.find(scopeOf(principal), id)
    if (target === undefined) throw notFound(id)
    // Before any SSE header, so that a key or organization over its cap gets a plain 429.
    capture.follows.admit(principal)
    let stop = () => undefined as void
    const writer = openKeyBoundStream(res, principal, keyBound, () => {
      stop()
      capture.follows.release(principal)
    })
    if (target.kind === 'ended') {
      void writer.data(JSON.stringify({ type: 'exchange.ended', exchange: target.exchange }))
      res.end()
      return
    }
    stop = capture.follow(target.recorder, res)
  })

  router.get(below(TrafficPath.live), (req, res) => {
    const principal = principalOf(req)
    // First, so that a key or organization over its cap gets a plain 429, before any SSE header.
    const unsubscribe = capture.live.subscribe(principal, scopeOf(principal), res)
    openKeyBoundStream(res, principal, keyBound, unsubscribe)
  })

  router.put(below(TrafficPath.mode), async (req, res) => {
    const principal = principalOf(req)
    // The mode is the gateway's, for every organization: only owners and admins may change it.
    if (principal.role !== 'owner' && principal.role !== 'admin') {
      throw new GatewayError('insufficient_role', 'Changing the capture mode needs an owner or admin key.')
    }
    const parsed = setCaptureModeRequestSchema.safeParse((await readJsonBody(req, 4 * 1024)).value)
    if (!parsed.success) {
      const issue = firstIssue(parsed.error)
      throw invalidRequest(invalidFieldMessage(issue, 'body'), issue.param)
    }
    const changed = await capture.setMode(parsed.data.mode).catch((error: unknown) => {
      throw new GatewayError('capture_unavailable', `Capture stays ${capture.mode}: ${(error as Error).message}`)
    })
    sendJson(res, 200, changed)
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

const notFound = (id: string) => new GatewayError('exchange_not_found', `No exchange has the ID ${id.slice(0, 100)}.`, { param: 'id' })

function parseQuery<S extends z.ZodType>(schema: S, query: unknown): z.output<S> {
  const parsed = schema.safeParse(query)
  if (parsed.success) return parsed.data
  // The query parameter's name: `status`, not the index of the bad item in its list.
  const issue = firstIssue(parsed.error, { depth: 1 })
  throw invalidRequest(invalidFieldMessage(issue, 'query'), issue.param)
}
