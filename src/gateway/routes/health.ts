import type { RequestHandler } from 'express'
import {
  deploymentState,
  type DeploymentStatus,
  type HealthResponse,
  type StatusResponse,
} from '../../shared/api/health'
import type { ClusterPeer } from '../cluster/cluster'
import type { DeployedModel, ModelCatalog } from '../config/model-catalog'
import { sendJson } from '../http/send-json'
import { MORTAR_VERSION } from '../version'

async function statusOf(model: DeployedModel): Promise<DeploymentStatus> {
  const { backend } = model
  const replicas = backend.health === undefined ? [] : await backend.health()
  return {
    model: model.id,
    deployment: backend.deployment,
    kind: backend.health === undefined ? 'in-process' : 'upstream',
    state: backend.health === undefined ? 'up' : deploymentState(replicas),
    replicas_up: replicas.filter((r) => r.state === 'up').length,
    replicas_down: replicas.filter((r) => r.state === 'down').length,
    context_window: model.contextWindow ?? null,
    context_window_source: model.contextWindowSource,
    replicas,
  }
}

const statuses = (catalog: ModelCatalog): Promise<DeploymentStatus[]> => Promise.all(catalog.deployed().map(statusOf))

/**
 * GET /health, without a key: the gateway answers (`status: ok`), and how each deployment's model
 * servers are doing, as counts only, and in a cluster whether it reaches Redis (load balancers keep
 * sending to a degraded instance: it serves alone). Replica names, URLs and errors are for key holders (/v1/status).
 */
export const health =
  (catalog: () => ModelCatalog, cluster: ClusterPeer | undefined): RequestHandler =>
  async (_req, res) => {
    const body: HealthResponse = {
      status: 'ok',
      version: MORTAR_VERSION,
      deployments: (await statuses(catalog())).map(({ deployment, kind, state, replicas_up, replicas_down }) => ({
        deployment,
        kind,
        state,
        replicas_up,
        replicas_down,
      })),
      ...(cluster !== undefined ? { cluster: cluster.status() } : {}),
    }
    sendJson(res, 200, body)
  }

/** GET /v1/status: each deployment with its model, context window and replicas (last error included). */
export const status =
  (catalog: () => ModelCatalog): RequestHandler =>
  async (_req, res) => {
    const body: StatusResponse = { object: 'mortar.status', version: MORTAR_VERSION, deployments: await statuses(catalog()) }
    sendJson(res, 200, body)
  }
