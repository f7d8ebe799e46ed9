import type { RequestHandler } from 'express'
import type { StopGenerationResponse } from '../../shared/api/chat-response'
import { principalOf } from '../auth/authenticate'
import type { ClusterPeer } from '../cluster/cluster'
import type { GenerationRegistry } from '../generation/generation-registry'
import { sendJson } from '../http/send-json'

/**
 * POST /v1/generations/{id}/stop. 200 when a running generation of the caller's organization was
 * stopped; otherwise 404 with the same body shape — finished, unknown and other-org IDs are
 * answered alike, so the endpoint can't be used to find out which IDs are live. In a cluster, an ID
 * this instance doesn't run is relayed to the instance that does, and answered once it confirms.
 */
export function stopGeneration(generations: GenerationRegistry, cluster: ClusterPeer | undefined): RequestHandler {
  return async (req, res) => {
    const id = String(req.params.id ?? '')
    const { org } = principalOf(req)
    const stopped = generations.stop(id, org, 'stopped') || (cluster !== undefined && (await cluster.stopElsewhere(id, org)))
    const body: StopGenerationResponse = { stopped, id }
    sendJson(res, stopped ? 200 : 404, body)
  }
}
