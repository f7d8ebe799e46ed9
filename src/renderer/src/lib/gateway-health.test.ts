import { describe, expect, it } from 'vitest'
import type { DeploymentHealth } from '../../../shared/api/health'
import { healthFromResponse, healthLabel, healthLevel } from './gateway-health'

const deployment = (state: DeploymentHealth['state'], up: number, down: number, name = 'upstream'): DeploymentHealth => ({
  deployment: name,
  kind: 'upstream',
  state,
  replicas_up: up,
  replicas_down: down,
})
const ok = (...deployments: DeploymentHealth[]) => healthFromResponse(200, { status: 'ok', version: '0.1.0', deployments })

describe('the header’s gateway health', () => {
  it('is ok when the gateway and every model server answer', () => {
    const health = ok({ deployment: 'scripted', kind: 'in-process', state: 'up', replicas_up: 0, replicas_down: 0 })
    expect(healthLevel(health)).toBe('ok')
    expect(healthLabel(health)).toBe('Gateway: ok')
  })

  it('says which model server is down while the gateway answers', () => {
    expect(healthLevel(ok(deployment('down', 0, 1)))).toBe('degraded')
    expect(healthLabel(ok(deployment('down', 0, 1)))).toBe('Gateway: ok · model server down (upstream)')
    expect(healthLabel(ok(deployment('degraded', 1, 1)))).toBe('Gateway: ok · 1 of 2 replicas down (upstream)')
    expect(healthLabel(ok(deployment('down', 0, 1, 'a'), deployment('degraded', 2, 1, 'b')))).toBe(
      'Gateway: ok · 2 deployments with model servers down',
    )
  })

  it('counts a model server not checked yet as fine, not as down', () => {
    expect(healthLevel(ok(deployment('unknown', 0, 0)))).toBe('ok')
  })

  it('is unreachable for an error status or an answer that is not Mortar’s health', () => {
    expect(healthLevel(healthFromResponse(502, {}))).toBe('unreachable')
    expect(healthLevel(healthFromResponse(200, { status: 'ok' }))).toBe('unreachable')
    expect(healthLabel(healthFromResponse(200, 'hello'))).toBe('Gateway: unreachable')
  })
})
