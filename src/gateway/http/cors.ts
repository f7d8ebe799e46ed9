import type { IncomingMessage, ServerResponse } from 'node:http'
import { EXPOSED_HEADERS } from '../../shared/api/headers'
import { GatewayError } from '../errors'
import { setResponseHeader } from './response-head'

const EXPOSED_HEADERS_VALUE = EXPOSED_HEADERS.join(', ')

/**
 * Cross-origin requests. A page may call the gateway only from an allowed origin (`--allow-origin`)
 * or from the gateway's own origin (the UI it serves). Any other `Origin` is refused outright —
 * not merely left without CORS headers — because a simple request would still reach the handler.
 * Preflights reflect the requested headers (the OpenAI SDK sends `x-stainless-*` ones), and the
 * `X-Mortar-*` reports are exposed so the page can read them. No credentials mode: keys travel in
 * Authorization, never in cookies. Returns `answered` when it answered a preflight itself; throws a
 * 403 GatewayError for a refused origin.
 */
export function corsPolicy(allowedOrigins: readonly string[]): (req: IncomingMessage, res: ServerResponse) => 'answered' | undefined {
  const allowed = new Set(allowedOrigins.map((origin) => origin.replace(/\/$/, '').toLowerCase()))
  return (req, res) => {
    const origin = req.headers.origin
    if (origin === undefined) return undefined
    const normalized = origin.toLowerCase()
    const sameOrigin = req.headers.host !== undefined && normalized === `http://${req.headers.host.toLowerCase()}`
    if (!sameOrigin && !allowed.has(normalized)) {
      throw new GatewayError(
        'origin_not_allowed',
        `Requests from the origin ${JSON.stringify(origin.slice(0, 200))} are not allowed. Start the gateway with --allow-origin to allow a web app.`,
      )
    }
    setResponseHeader(res, 'Access-Control-Allow-Origin', origin)
    setResponseHeader(res, 'Vary', 'Origin')
    setResponseHeader(res, 'Access-Control-Expose-Headers', EXPOSED_HEADERS_VALUE)
    if (req.method === 'OPTIONS') {
      res.setHeader('Access-Control-Allow-Methods', 'GET, POST, OPTIONS')
      const requested = req.headers['access-control-request-headers']
      if (requested !== undefined) res.setHeader('Access-Control-Allow-Headers', requested)
      res.setHeader('Access-Control-Max-Age', '600')
      res.statusCode = 204
      res.end()
      return 'answered'
    }
    return undefined
  }
}
