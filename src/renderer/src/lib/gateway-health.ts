import { healthResponseSchema, type DeploymentHealth } from '../../../shared/api/health'

/** What the header shows: whether the gateway answers, and whether its model servers do. */
export type GatewayHealth =
  | { kind: 'checking' }
  | { kind: 'unreachable'; reason: string }
  | { kind: 'ok'; deployments: DeploymentHealth[] }

/** The header's one-word state: `degraded` when the gateway answers but a model server does not. */
export type HealthLevel = 'checking' | 'ok' | 'degraded' | 'unreachable'

/** Reads a `/health` answer; anything but a well-formed `ok` counts as unreachable. */
export function healthFromResponse(status: number, body: unknown): GatewayHealth {
  if (status !== 200) return { kind: 'unreachable', reason: `/health answered HTTP ${status}` }
  const parsed = healthResponseSchema.safeParse(body)
  if (!parsed.success) return { kind: 'unreachable', reason: '/health answered something else than Mortar’s health' }
  return { kind: 'ok', deployments: parsed.data.deployments }
}

export function healthLevel(health: GatewayHealth): HealthLevel {
  if (health.kind !== 'ok') return health.kind
  return health.deployments.every((d) => d.state === 'up' || d.state === 'unknown') ? 'ok' : 'degraded'
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** The header's text, e.g. `Gateway: ok · model server down` or `Gateway: ok · 1 of 2 replicas down`. */
export function healthLabel(health: GatewayHealth): string {
  if (health.kind === 'checking') return 'Gateway: checking…'
  if (health.kind === 'unreachable') return 'Gateway: unreachable'
  const troubled = health.deployments.filter((d) => d.state === 'down' || d.state === 'degraded')
  if (troubled.length === 0) return 'Gateway: ok'
  const down = troubled.filter((d) => d.state === 'down')
  if (troubled.length === 1 && down.length === 1) return `Gateway: ok · model server down (${down[0]?.deployment})`
  const [d] = troubled
  if (troubled.length === 1 && d !== undefined) {
    return `Gateway: ok · ${d.replicas_down} of ${plural(d.replicas_up + d.replicas_down, 'replica')} down (${d.deployment})`
  }
  return `Gateway: ok · ${plural(troubled.length, 'deployment')} with model servers down`
}
