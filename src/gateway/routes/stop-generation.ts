import type { RequestHandler } from 'express'
import type { StopGenerationResponse } from '../../shared/api/chat-response'
import { principalOf } from '../auth/authenticate'
import type { GenerationRegistry } from '../generation/generation-registry'
import { sendJson } from '../http/send-json'

/**
 * POST /v1/generations/{id}/stop. 200 when a running generation of the caller's organization was
 * stopped; otherwise 404 with the same body shape — finished, unknown and other-org IDs are
 * answered alike, so the endpoint can't be used to find out which IDs are live.
 */
export function stopGeneration(generations: GenerationRegistry): RequestHandler {
  return (req, res) => {
    const id = String(req.params.id ?? '')
    const stopped = generations.stop(id, principalOf(req).org, 'stopped')
    const body: StopGenerationResponse = { stopped, id }
    sendJson(res, stopped ? 200 : 404, body)
  }
}
