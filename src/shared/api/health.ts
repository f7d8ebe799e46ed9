import { z } from 'zod'

/**
 * What the gateway says about itself and its model servers. `GET /health` (no key: load balancers,
 * the UI before it has a key) has the gateway's state and a count per deployment — no URLs, no
 * errors, nothing a stranger could use. `GET /v1/status` (any key) adds each replica's detail.
 * One definition for the gateway that writes them and the UI that reads them.
 */

/** `up`: answered its last check or request; `down`: could not be reached; `unknown`: not checked yet. */
export const REPLICA_STATES = ['up', 'down', 'unknown'] as const
/** In-process deployments (the scripted model) are always `up`. */
export const DEPLOYMENT_STATES = ['up', 'degraded', 'down', 'unknown'] as const

const timestamp = z.string().nullable()

export const replicaStatusSchema = z.object({
  id: z.string(),
  state: z.enum(REPLICA_STATES),
  /** The last failure to reach it or get an answer, as the gateway reported it; null when none since start. */
  last_error: z.string().nullable(),
  last_error_at: timestamp,
  last_ok_at: timestamp,
})
export type ReplicaStatus = z.output<typeof replicaStatusSchema>

export const deploymentHealthSchema = z.object({
  deployment: z.string(),
  kind: z.enum(['in-process', 'upstream']),
  state: z.enum(DEPLOYMENT_STATES),
  replicas_up: z.number(),
  replicas_down: z.number(),
})
export type DeploymentHealth = z.output<typeof deploymentHealthSchema>

/**
 * An instance of a cluster (`mortar serve --redis`): its name, and whether it reaches the shared
 * Redis. `unavailable` is the degraded state: the instance serves alone (docs/cluster.md).
 */
export const clusterHealthSchema = z.object({
  instance: z.string(),
  redis: z.enum(['connected', 'unavailable']),
  /** When `redis` last changed. */
  redis_since: z.string(),
})
export type ClusterHealth = z.output<typeof clusterHealthSchema>

export const healthResponseSchema = z.object({
  /** `ok` whenever the gateway answers: its model servers' state is per deployment, Redis's in `cluster`. */
  status: z.literal('ok'),
  version: z.string(),
  deployments: z.array(deploymentHealthSchema),
  /** Only when the gateway is one of a cluster. */
  cluster: clusterHealthSchema.optional(),
})
export type HealthResponse = z.output<typeof healthResponseSchema>

export const deploymentStatusSchema = deploymentHealthSchema.extend({
  model: z.string(),
  /** The context window the gateway plans with for this model; null when unknown (the server decides). */
  context_window: z.number().nullable(),
  /** Where it came from, as in /v1/models: `config.json`, the model server that said, `unknown`… */
  context_window_source: z.string(),
  replicas: z.array(replicaStatusSchema),
})
export type DeploymentStatus = z.output<typeof deploymentStatusSchema>

export const statusResponseSchema = z.object({
  object: z.literal('mortar.status'),
  version: z.string(),
  deployments: z.array(deploymentStatusSchema),
})
export type StatusResponse = z.output<typeof statusResponseSchema>

/** A deployment's state from its replicas' states. */
export function deploymentState(replicas: readonly Pick<ReplicaStatus, 'state'>[]): DeploymentHealth['state'] {
  const up = replicas.filter((r) => r.state === 'up').length
  const down = replicas.filter((r) => r.state === 'down').length
  if (down === 0) return up === replicas.length ? 'up' : 'unknown'
  return down === replicas.length ? 'down' : 'degraded'
}
