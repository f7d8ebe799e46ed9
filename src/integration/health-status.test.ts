import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterEach, describe, expect, it } from 'vitest'
import { healthResponseSchema, statusResponseSchema } from '../shared/api/health'
import { startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { startTestGateway, type TestGateway } from './harness'

// `/health` and `/v1/status` report each deployment's model servers as they are, not only that
// the gateway answers: a model server that is gone shows as down (checked, with no traffic needed),
// with why, and comes back up when it answers again.

const opened: Array<{ close(): Promise<void> }> = []
afterEach(async () => {
  for (const item of opened.splice(0).reverse()) await item.close()
})

async function gatewayInFrontOf(fake: FakeModelServer): Promise<TestGateway> {
  const gw = await startTestGateway(['--upstream', fake.url, '--upstream-timeout', '2'])
  opened.push(gw)
  return gw
}

const health = async (gw: TestGateway) => healthResponseSchema.parse(await (await fetch(`${gw.url}/health`)).json())
const status = async (gw: TestGateway) => {
  const response = await fetch(`${gw.url}/v1/status`, { headers: { Authorization: `Bearer ${gw.ownerKey}` } })
  expect(response.status).toBe(200)
  return statusResponseSchema.parse(await response.json())
}

describe('/health and /v1/status', () => {
  it('report the scripted model as an in-process deployment that is up', async () => {
    const gw = await startTestGateway()
    opened.push(gw)
    expect(await health(gw)).toMatchObject({ status: 'ok', deployments: [{ deployment: 'scripted', kind: 'in-process', state: 'up' }] })
    const { deployments } = await status(gw)
    expect(deployments).toEqual([
      expect.objectContaining({ model: DEFAULT_MODEL_ID, kind: 'in-process', state: 'up', context_window: 4096, replicas: [] }),
    ])
  })

  it('check a model server that is up, without any request having gone to it', async () => {
    const fake = await startFakeModelServer()
    opened.push(fake)
    const gw = await gatewayInFrontOf(fake)
    expect((await health(gw)).deployments).toEqual([{ deployment: 'upstream', kind: 'upstream', state: 'up', replicas_up: 1, replicas_down: 0 }])
    // No chat request reached it; the health check is a GET /v1/models (beside the context-window questions).
    expect(fake.requests).toEqual([])
    expect(fake.otherRequests.map((r) => `${r.method} ${r.path}`)).toContain('GET /v1/models')
    const [deployment] = (await status(gw)).deployments
    expect(deployment?.replicas).toEqual([
      expect.objectContaining({ id: fake.host, state: 'up', last_error: null, last_ok_at: expect.any(String) }),
    ])
  })

  it('show a model server that is gone as down with the reason, and up again once it answers', async () => {
    const fake = await startFakeModelServer()
    opened.push(fake)
    await fake.kill()
    const gw = await gatewayInFrontOf(fake)

    const first = await health(gw)
    expect(first.status).toBe('ok')
    expect(first.deployments).toEqual([{ deployment: 'upstream', kind: 'upstream', state: 'down', replicas_up: 0, replicas_down: 1 }])
    // No key, no detail: the replica's address and errors are not in /health.
    expect(JSON.stringify(first)).not.toContain(String(fake.port))
    const [down] = (await status(gw)).deployments
    expect(down).toMatchObject({ state: 'down', replicas: [{ state: 'down', last_error: 'unreachable (ECONNREFUSED)', last_ok_at: null }] })

    await fake.restart()
    const reply = await gw.client().chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], model: DEFAULT_MODEL_ID, stream: false })
    expect(reply.choices[0]?.message.content).toBe('Hello from the model')
    const [up] = (await status(gw)).deployments
    expect(up).toMatchObject({ state: 'up', replicas_up: 1, replicas: [{ state: 'up', last_error: 'unreachable (ECONNREFUSED)', last_ok_at: expect.any(String) }] })
  })

  it('/v1/status wants a key; /health does not', async () => {
    const gw = await startTestGateway()
    opened.push(gw)
    expect((await fetch(`${gw.url}/v1/status`)).status).toBe(401)
    expect((await fetch(`${gw.url}/health`)).status).toBe(200)
  })
})
