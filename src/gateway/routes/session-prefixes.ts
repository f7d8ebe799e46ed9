import express from 'express'
import { DEFAULT_MODEL_ID } from '../../shared/api/chat-request'
import { MAX_PREFIX_EXCHANGES, SESSION_PREFIXES_ROUTE, type SessionPrefixes } from '../../shared/api/session-prefixes'
import { TRAFFIC_BASE } from '../../shared/api/traffic'
import { principalOf } from '../auth/authenticate'
import { scopeOf } from '../capture/exchange-filter'
import type { TrafficCapture } from '../capture/traffic-capture'
import type { ModelCatalog } from '../config/model-catalog'
import { sendJson } from '../http/send-json'
import { sessionPrefixes } from '../sessions/prompt-prefixes'
import type { Tokenizer } from '../tokens/tokenizer'

/**
 * GET /v1/traffic/sessions/{session}/prefixes: the session's captured chat completions (those the
 * caller's key may see, the newest MAX_PREFIX_EXCHANGES), oldest first, each prompt compared with
 * the previous one in the model's tokens. Under the traffic API's path, so it is not captured.
 */
export function sessionPrefixesRouter(capture: TrafficCapture, catalog: () => ModelCatalog): express.Router {
  const router = express.Router()
  const tokenizerFor = (model: string | null): Tokenizer | null => {
    try {
      return catalog().resolve(model ?? DEFAULT_MODEL_ID).tokenizer
    } catch {
      return null // a model the catalog no longer serves
    }
  }
  router.get(SESSION_PREFIXES_ROUTE.slice(TRAFFIC_BASE.length), async (req, res, next) => {
    try {
      const session = String(req.params.session)
      const exchanges = capture.select(scopeOf(principalOf(req)), { session: [session] }, undefined).slice(0, MAX_PREFIX_EXCHANGES).reverse()
      const data = await sessionPrefixes(
        exchanges.map((exchange) => ({
          id: exchange.id,
          started_at: exchange.started_at,
          model: exchange.model,
          endpoint: exchange.endpoint,
          body: exchange.model_body ?? exchange.request.body,
          truncated: exchange.truncated !== null,
          cached_tokens: exchange.cached_tokens,
        })),
        tokenizerFor,
      )
      const body: SessionPrefixes = { object: 'session.prefixes', session, data }
      sendJson(res, 200, body)
    } catch (error) {
      next(error)
    }
  })
  return router
}
