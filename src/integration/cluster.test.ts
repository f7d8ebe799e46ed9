import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { KeyStore } from '../gateway/auth/key-store'
import { spawnMortar, stopAllMortars } from '../cli/test-support/spawn-mortar'
import { healthResponseSchema, type ClusterHealth } from '../shared/api/health'
import { HeaderName } from '../shared/api/headers'
import { redisAvailable, startRedisServer, type RedisServer } from '../test-kit/redis-server'

const describeWithRedis = redisAvailable() ? describe : describe.skip
if (!redisAvailable()) console.warn('cluster tests skipped: no /usr/bin/redis-server (apt-get install redis-server; .ci/run installs it)')

interface Instance {
  url: string
  name: string
}

// Each test starts two or three real processes: on a loaded two-core machine that alone takes seconds.
describeWithRedis('several gateways sharing one Redis (real redis-server, real `mortar serve` processes)', { timeout: 60_000 }, () => {
  let redis: RedisServer
  let home: string
  let key: string
  let otherOrgKey: string

  beforeEach(async () => {
    redis = await startRedisServer()
    // One home for all instances: one keys.json, as on one machine (keys in Redis come separately).
    home = mkdtempSync(join(tmpdir(), 'mortar-cluster-'))
    const keys = new KeyStore(join(home, 'keys.json'))
    key = keys.create({ name: 'team', role: 'owner' }).key
    otherOrgKey = keys.create({ name: 'stranger', org: 'acme' }).key
    keys.close()
  })

  afterEach(async () => {
    stopAllMortars()
    await redis.stop()
    rmSync(home, { recursive: true, force: true })
  })

  async function startInstance(name: string): Promise<Instance> {
    const mortar = spawnMortar(['serve', '--port', '0', '--scripted-tps', '40', '--redis', redis.url, '--instance', name], { home })
    const [, url] = await mortar.line(/listening on (http:\/\/\S+)/)
    await mortar.line(new RegExp(`Cluster: +instance ${name}, Redis redis://127\\.0\\.0\\.1:${redis.port} \\(connected\\)`))
    return { url: url!, name }
  }

  const authorized = (secret: string) => ({ Authorization: `Bearer ${secret}` })

  /** A long scripted stream on `instance`: its completion ID, and a reader of the rest. */
  async function startStream(instance: Instance, words = 400) {
    const response = await fetch(`${instance.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authorized(key),
      body: JSON.stringify({ messages: [{ role: 'user', content: 'tick '.repeat(words) }], stream_options: { include_usage: true } }),
    })
    expect(response.status).toBe(200)
    const id = response.headers.get(HeaderName.requestId)!
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    const first = await reader.read()
    expect(decoder.decode(first.value)).toContain('"role":"assistant"')
    const rest = async () => {
      let text = ''
      for (;;) {
        const { done, value } = await reader.read()
        if (done) return text
        text += decoder.decode(value, { stream: true })
      }
    }
    return { id, rest }
  }

  const stop = (instance: Instance, id: string, secret = key) =>
    fetch(`${instance.url}/v1/generations/${id}/stop`, { method: 'POST', headers: authorized(secret) })

  async function clusterHealth(instance: Instance): Promise<ClusterHealth | undefined> {
    const response = await fetch(`${instance.url}/health`)
    return healthResponseSchema.parse(await response.json()).cluster
  }

  /** Polls /health until `instance` reports `state` (Redis reconnects within a second or two). */
  async function untilRedis(instance: Instance, state: ClusterHealth['redis']): Promise<void> {
    const deadline = Date.now() + 15_000
    while ((await clusterHealth(instance))?.redis !== state) {
      if (Date.now() > deadline) throw new Error(`${instance.name} never reported Redis ${state}`)
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }

  it('refuses a URL that is not Redis at start-up, with exit code 2', async () => {
    const mortar = spawnMortar(['serve', '--port', '0', '--redis', 'http://127.0.0.1:1'], { home })
    expect(await mortar.exited).toBe(2)
    expect(mortar.stderr()).toContain('--redis takes a redis:// or rediss:// URL')
  })

  it("a stop through B for a crashed A's generation is answered 404, as for an unknown ID", async () => {
    const mortarA = spawnMortar(['serve', '--port', '0', '--scripted-tps', '40', '--redis', redis.url, '--instance', 'a'], { home })
    const [, urlA] = await mortarA.line(/listening on (http:\/\/\S+)/)
    const a = { url: urlA!, name: 'a' }
    const b = await startInstance('b')
    const stream = await startStream(a)
    mortarA.child.kill('SIGKILL')
    await mortarA.exited
    // A's entry outlives it until its TTL; nobody listens on A's channel, so B says so at once.
    const response = await stop(b, stream.id)
    expect(response.status).toBe(404)
    expect(await response.json()).toEqual({ stopped: false, id: stream.id })
  })

  it('a stream on A stopped through B ends as the spec says: no finish chunk, usage, [DONE]', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const stream = await startStream(a)
    const response = await stop(b, stream.id)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ stopped: true, id: stream.id })
    const rest = await stream.rest()
    expect(rest.trimEnd().endsWith('data: [DONE]')).toBe(true)
    expect(rest).not.toMatch(/"finish_reason":"/)
    expect(rest).toContain('"usage"')
    // Now finished: the same 404 as an unknown ID, from either instance.
    for (const instance of [a, b]) {
      const again = await stop(instance, stream.id)
      expect(again.status).toBe(404)
      expect(await again.json()).toEqual({ stopped: false, id: stream.id })
    }
  })

  it("answers another org's live ID through another instance exactly as an unknown one, and the stream runs on", async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const stream = await startStream(a)
    const foreign = await stop(b, stream.id, otherOrgKey)
    const unknown = await stop(b, 'chatcmpl-000000000000000000000000', otherOrgKey)
    expect([foreign.status, unknown.status]).toEqual([404, 404])
    expect(await foreign.json()).toEqual({ stopped: false, id: stream.id })
    expect(await unknown.json()).toEqual({ stopped: false, id: 'chatcmpl-000000000000000000000000' })
    expect((await stop(b, stream.id)).status).toBe(200)
    expect(await stream.rest()).toContain('data: [DONE]')
  })

  it('Redis killed mid-stream: the stream finishes whole, /health says unavailable, local stops still work; all recovers when Redis is back', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    expect(await clusterHealth(a)).toMatchObject({ instance: 'a', redis: 'connected' })
    // Long enough to outlive Redis's death, short enough (about 3 s at 40 tokens/s) to await its end.
    const survivor = await startStream(a, 120)
    const stoppedLocally = await startStream(a)
    await redis.kill()
    await untilRedis(a, 'unavailable')
    // The instance serves alone: its own stop works without Redis...
    expect((await stop(a, stoppedLocally.id)).status).toBe(200)
    expect(await stoppedLocally.rest()).toContain('data: [DONE]')
    // ...a stop that lands elsewhere cannot reach the owner: the same 404, at once rather than a hang.
    expect((await stop(b, survivor.id)).status).toBe(404)
    // And the stream that nobody stopped runs to its natural end.
    const rest = await survivor.rest()
    expect(rest).toContain('"finish_reason":"stop"')
    expect(rest.trimEnd().endsWith('data: [DONE]')).toBe(true)

    await redis.restart()
    await Promise.all([untilRedis(a, 'connected'), untilRedis(b, 'connected')])
    const later = await startStream(a)
    // Entries are written again on reconnect: stops through B reach A again.
    expect((await stop(b, later.id)).status).toBe(200)
    expect(await later.rest()).not.toMatch(/"finish_reason":"/)
  })
})
