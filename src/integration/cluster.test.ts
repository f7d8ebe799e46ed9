import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { writeFileSync } from 'node:fs'
import { KeyStore } from '../gateway/auth/key-store'
import { runKeysCommand } from '../cli/keys-command'
import type { CliIo } from '../cli/cli-io'
import { spawnMortar, stopAllMortars } from '../cli/test-support/spawn-mortar'
import { healthResponseSchema, type ClusterHealth } from '../shared/api/health'
import { HeaderName } from '../shared/api/headers'
import { telemetryEventSchema, type TelemetryEvent } from '../shared/api/telemetry'
import { exchangeListSchema, exchangeSchema, trafficEventSchema, type ExchangeSummary, type TrafficEvent } from '../shared/api/traffic'
import { startFakeModelServer } from '../test-kit/fake-model-server'
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
    // One home for all instances. Its keys.json is brought into Redis, where a cluster's keys live.
    home = mkdtempSync(join(tmpdir(), 'mortar-cluster-'))
    const keys = new KeyStore(join(home, 'keys.json'))
    key = keys.create({ name: 'team', role: 'owner' }).key
    otherOrgKey = keys.create({ name: 'stranger', org: 'acme' }).key
    keys.close()
    const imported = await keysCommand(['import', '--home', home, '--redis', redis.url])
    expect(imported).toEqual({ code: 0, out: [`Imported 2 of 2 keys from ${join(home, 'keys.json')} into Redis.`] })
  })

  /** `mortar keys …`, in this process: what it printed and its exit code. */
  async function keysCommand(argv: string[]): Promise<{ code: number; out: string[] }> {
    const out: string[] = []
    const io: CliIo = { out: (line) => void out.push(line), err: (line) => void out.push(line) }
    const code = await runKeysCommand(argv, io)
    return { code, out }
  }

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

  /** The events of a /v1/telemetry response, parsed as the UI parses them. */
  const readEvents = (response: Response) => readSse(response, (data) => telemetryEventSchema.parse(data))
  /** The events of a /v1/traffic/live response, parsed as the UI parses them. */
  const readTraffic = (response: Response) => readSse(response, (data) => trafficEventSchema.parse(data))

  async function* readSse<T>(response: Response, parse: (data: unknown) => T): AsyncGenerator<T> {
    const decoder = new TextDecoder()
    let buffered = ''
    for await (const chunk of response.body!) {
      buffered += decoder.decode(chunk, { stream: true })
      let end: number
      while ((end = buffered.indexOf('\n\n')) !== -1) {
        const frame = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        const data = frame.split('\n').find((line) => line.startsWith('data: '))
        if (data !== undefined) yield parse(JSON.parse(data.slice('data: '.length)))
      }
    }
  }

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

  const ask = (instance: Instance, secret: string, content = 'hello cluster') =>
    fetch(`${instance.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authorized(secret),
      body: JSON.stringify({ messages: [{ role: 'user', content }], stream: false }),
    })

  it("a telemetry subscriber on B sees A's requests, marked with A's name, and only its own org's", async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const subscription = await fetch(`${b.url}/v1/telemetry`, { headers: authorized(key) })
    expect(subscription.status).toBe(200)
    const events = readEvents(subscription)
    // Another org's request on A first: B's subscriber must never see it.
    const foreign = await ask(a, otherOrgKey)
    const foreignId = foreign.headers.get(HeaderName.requestId)
    const mine = await ask(a, key)
    expect(mine.status).toBe(200)
    const id = mine.headers.get(HeaderName.requestId)!
    const seen: TelemetryEvent[] = []
    for await (const event of events) {
      seen.push(event)
      if (event.type === 'request.finished' && event.id === id) break
    }
    const ofRequest = seen.filter((event) => event.id === id)
    expect(ofRequest.map((event) => event.type)).toEqual(['request.accepted', 'request.first_token', 'request.finished'])
    expect(ofRequest.every((event) => event.instance === 'a' && event.org === 'default')).toBe(true)
    expect(seen.some((event) => event.id === foreignId)).toBe(false)
  })

  /** A subscription's events as they come, and a wait for one that matches (undefined after `ms`). */
  function collect<T>(events: AsyncGenerator<T>) {
    const seen: T[] = []
    const waiters = new Set<{ test: (event: T) => boolean; resolve: (event: T) => void }>()
    void (async () => {
      for await (const event of events) {
        seen.push(event)
        for (const waiter of [...waiters]) {
          if (!waiter.test(event)) continue
          waiters.delete(waiter)
          waiter.resolve(event)
        }
      }
    })().catch(() => undefined)
    const until = (test: (event: T) => boolean, ms = 15_000) =>
      new Promise<T | undefined>((resolve) => {
        const found = seen.find(test)
        if (found !== undefined) return resolve(found)
        const waiter = { test, resolve }
        waiters.add(waiter)
        setTimeout(() => {
          waiters.delete(waiter)
          resolve(undefined)
        }, ms)
      })
    return { seen, until }
  }

  const endedWith = (id: string | null) => (event: TrafficEvent) => event.type === 'exchange.ended' && event.exchange.completion_id === id

  /** Sends a request and reads its reply: its completion ID. */
  async function completed(instance: Instance, secret: string, content?: string): Promise<string> {
    const response = await ask(instance, secret, content)
    expect(response.status).toBe(200)
    await response.arrayBuffer()
    return response.headers.get(HeaderName.requestId)!
  }

  /**
   * Requests on `from` until a subscription elsewhere shows one ended: a subscriber's arrival
   * reaches the other instances over pub/sub, so their very first requests may not be relayed yet.
   */
  async function untilRelayed(from: Instance, secret: string, live: ReturnType<typeof collect<TrafficEvent>>): Promise<void> {
    for (let attempt = 0; attempt < 15; attempt++) {
      if ((await live.until(endedWith(await completed(from, secret, 'warm up')), 1_000)) !== undefined) return
    }
    throw new Error(`${from.name}'s exchanges never reached the subscriber`)
  }

  const subscribeTraffic = async (instance: Instance, secret: string) => {
    const response = await fetch(`${instance.url}/v1/traffic/live`, { headers: authorized(secret) })
    expect(response.status).toBe(200)
    return collect(readTraffic(response))
  }

  /** The exchange (its summary) of a completion, once a live subscriber saw it end. */
  async function endedExchange(live: ReturnType<typeof collect<TrafficEvent>>, completionId: string): Promise<ExchangeSummary> {
    const event = await live.until(endedWith(completionId))
    if (event === undefined || !('exchange' in event)) throw new Error(`${completionId} never ended on the live stream`)
    return event.exchange
  }

  const listExchanges = async (instance: Instance, secret: string) => {
    const response = await fetch(`${instance.url}/v1/traffic/exchanges`, { headers: authorized(secret) })
    expect(response.status).toBe(200)
    return exchangeListSchema.parse(await response.json()).data
  }

  const getExchange = (instance: Instance, id: string, secret: string) => fetch(`${instance.url}/v1/traffic/exchanges/${id}`, { headers: authorized(secret) })

  it("a Traffic live subscriber on B sees A's exchanges, marked with A's name, and only its own org's", async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const mine = await subscribeTraffic(b, key)
    const theirs = await subscribeTraffic(b, otherOrgKey)
    await untilRelayed(a, otherOrgKey, theirs)
    // Another org's request on A first: B's subscriber of the default org must never see it.
    const foreignId = await completed(a, otherOrgKey)
    const id = await completed(a, key)
    const ended = await mine.until(endedWith(id))
    expect(ended).toMatchObject({ exchange: { instance: 'a', org: 'default', outcome: 'finished' } })
    // Its start came before its completion ID was known: the exchange's own ID ties them.
    const exchangeId = ended !== undefined && 'exchange' in ended ? ended.exchange.id : undefined
    const ofRequest = mine.seen.flatMap((event) => ('exchange' in event && event.exchange.id === exchangeId ? [event] : []))
    expect(ofRequest.map((event) => event.type)).toContain('exchange.started')
    expect(ofRequest.every((event) => event.exchange.instance === 'a')).toBe(true)
    // The other org's subscriber on B saw its own request on A, and nothing of the default org's.
    expect(await theirs.until(endedWith(foreignId))).toMatchObject({ exchange: { instance: 'a', org: 'acme' } })
    // B's own exchanges are marked with its name.
    const localId = await completed(b, key)
    expect(await mine.until(endedWith(localId))).toMatchObject({ exchange: { instance: 'b', org: 'default' } })
    const exchangesOf = (events: TrafficEvent[]) => events.flatMap((event) => ('exchange' in event ? [event.exchange] : []))
    expect(exchangesOf(mine.seen).some((exchange) => exchange.org === 'acme')).toBe(false)
    expect(exchangesOf(theirs.seen).every((exchange) => exchange.org === 'acme')).toBe(true)
  })

  it("B lists A's exchanges and serves A's record; another org gets neither, the same 404 as for an unknown ID", async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const mine = await subscribeTraffic(b, key)
    const theirs = await subscribeTraffic(b, otherOrgKey)
    await untilRelayed(a, otherOrgKey, theirs)
    // A's index entry is written before its live event goes out, on one connection: seeing the event is seeing the entry.
    const exchange = await endedExchange(mine, await completed(a, key, 'hello from A'))
    const foreign = await endedExchange(theirs, await completed(a, otherOrgKey, 'hello from acme'))
    const listed = await listExchanges(b, key)
    expect(listed.find((row) => row.id === exchange.id)).toMatchObject({ instance: 'a', org: 'default', outcome: 'finished' })
    expect(listed.some((row) => row.org === 'acme')).toBe(false)
    const theirList = await listExchanges(b, otherOrgKey)
    expect(theirList.map((row) => row.id)).toContain(foreign.id)
    expect(theirList.every((row) => row.org === 'acme')).toBe(true)

    const record = await getExchange(b, exchange.id, key)
    expect(record.status).toBe(200)
    const whole = exchangeSchema.parse(await record.json())
    expect(whole).toMatchObject({ id: exchange.id, instance: 'a', org: 'default' })
    expect(whole.request.body).toContain('hello from A')

    const unknownId = 'exch_000000000000000000000000'
    const [foreignLook, unknownLook] = await Promise.all([getExchange(b, exchange.id, otherOrgKey), getExchange(b, unknownId, otherOrgKey)])
    expect([foreignLook.status, unknownLook.status]).toEqual([404, 404])
    const withoutId = (body: unknown) => JSON.stringify(body).replaceAll(exchange.id, 'ID').replaceAll(unknownId, 'ID')
    expect(withoutId(await foreignLook.json())).toBe(withoutId(await unknownLook.json()))
  })

  it('Redis killed: each instance still lists, serves and streams its own traffic, and answers 404 at once for the other\'s', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const onA = await subscribeTraffic(a, key)
    const onB = await subscribeTraffic(b, key)
    await untilRelayed(a, key, onB)
    const before = await endedExchange(onA, await completed(a, key, 'before the crash'))
    await redis.kill()
    await Promise.all([untilRedis(a, 'unavailable'), untilRedis(b, 'unavailable')])
    const ofA = await endedExchange(onA, await completed(a, key, 'alone on A'))
    const ofB = await endedExchange(onB, await completed(b, key, 'alone on B'))
    expect([ofA.instance, ofB.instance]).toEqual(['a', 'b'])
    const listedOnA = (await listExchanges(a, key)).map((row) => row.id)
    expect(listedOnA).toEqual(expect.arrayContaining([ofA.id, before.id]))
    expect(listedOnA).not.toContain(ofB.id)
    expect((await listExchanges(b, key)).map((row) => row.id)).toContain(ofB.id)
    expect((await getExchange(a, ofA.id, key)).status).toBe(200)
    expect((await getExchange(b, ofB.id, key)).status).toBe(200)
    // The holder cannot be asked: the same 404 as an unknown ID, without waiting for Redis.
    expect((await getExchange(b, ofA.id, key)).status).toBe(404)
  })

  const dedupeAs = (idempotencyKey: string) => (instance: Instance, content: string, signal?: AbortSignal) =>
    fetch(`${instance.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { ...authorized(key), [HeaderName.dedupe]: 'in-flight', [HeaderName.idempotencyKey]: idempotencyKey },
      body: JSON.stringify({ messages: [{ role: 'user', content }], stream: false }),
      ...(signal !== undefined ? { signal } : {}),
    })

  /** Polls Redis until `count` keys match `pattern` (an instance's entries appear within milliseconds). */
  async function untilKeys(pattern: string, count: number, what: string): Promise<void> {
    const redisClient = new Redis(redis.url)
    try {
      const deadline = Date.now() + 15_000
      while ((await redisClient.keys(pattern)).length < count) {
        if (Date.now() > deadline) throw new Error(what)
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    } finally {
      redisClient.disconnect()
    }
  }

  it('identical dedupe requests on A and B share one generation: one completion ID, B shared; a different body under the key is a 409 on B', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const dedupe = dedupeAs('build-42')
    // About ten seconds at 40 tokens/s: B's requests arrive while A's generation runs.
    const prompt = 'shared '.repeat(400)
    const leader = dedupe(a, prompt)
    // A holds the key once its entry is in Redis: B then finds a leader rather than racing for it.
    await untilKeys('mortar:dedupe:default:build-42', 1, 'A never took the dedupe key')
    const [follower, conflicting] = await Promise.all([dedupe(b, prompt), dedupe(b, 'something else')])
    expect(conflicting.status).toBe(409)
    expect(((await conflicting.json()) as { error: { code: string } }).error.code).toBe('idempotency_key_conflict')
    const led = await leader
    expect([led.status, follower.status]).toEqual([200, 200])
    expect(led.headers.get(HeaderName.dedupe)).toBe('leader')
    expect(follower.headers.get(HeaderName.dedupe)).toBe('shared')
    const [ledBody, sharedBody] = (await Promise.all([led.json(), follower.json()])) as Array<{ id: string; choices: unknown }>
    expect(sharedBody).toEqual(ledBody)
    expect(follower.headers.get(HeaderName.requestId)).toBe(ledBody!.id)
    // Nothing is kept once it ended: the same request again leads a new generation.
    const again = await dedupe(b, prompt)
    expect(again.headers.get(HeaderName.dedupe)).toBe('leader')
    expect(((await again.json()) as { id: string }).id).not.toBe(ledBody!.id)
  })

  it("a shared generation goes on when the leader's own client leaves while a follower on B still waits", async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const dedupe = dedupeAs('build-43')
    // About five seconds at 40 tokens/s: the leader's client leaves early, the follower waits to the end.
    const prompt = 'shared '.repeat(200)
    const leaving = new AbortController()
    const leader = dedupe(a, prompt, leaving.signal).catch(() => undefined)
    await untilKeys('mortar:dedupe:default:build-43', 1, 'A never took the dedupe key')
    const follower = dedupe(b, prompt)
    // B counts itself among the leader's participants (its token in Redis) before A's client goes.
    await untilKeys('mortar:dedupe:default:build-43\u0000followers*', 1, 'B never registered as a follower')
    leaving.abort()
    await leader
    const shared = await follower
    expect(shared.status).toBe(200)
    expect(shared.headers.get(HeaderName.dedupe)).toBe('shared')
    const body = (await shared.json()) as { choices: Array<{ finish_reason: string; message: { content: string } }> }
    expect(body.choices[0]?.finish_reason).toBe('stop')
    expect(body.choices[0]?.message.content.length).toBeGreaterThan(0)
  })

  it('a session keeps its model-server replica whichever instance it lands on (the same rendezvous ranking everywhere)', async () => {
    const replicas = await Promise.all([startFakeModelServer(), startFakeModelServer(), startFakeModelServer()])
    try {
      const start = async (name: string, urls: string[]) => {
        const upstreams = urls.flatMap((url) => ['--upstream', url])
        const mortar = spawnMortar(['serve', '--port', '0', ...upstreams, '--context-window', '8192', '--redis', redis.url, '--instance', name], { home })
        const [, url] = await mortar.line(/listening on (http:\/\/\S+)/)
        return { url: url!, name }
      }
      const urls = replicas.map((replica) => replica.url)
      // B lists the replicas in another order: the ranking depends on their names, not on the flags.
      const [a, b] = await Promise.all([start('a', urls), start('b', [...urls].reverse())])
      const servedBy = async (instance: Instance, session: string) => {
        const response = await fetch(`${instance.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { ...authorized(key), [HeaderName.session]: session },
          body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }], stream: false }),
        })
        expect(response.status).toBe(200)
        await response.arrayBuffer()
        return response.headers.get(HeaderName.upstream)
      }
      const sessions = Array.from({ length: 8 }, (_, i) => `session-${i}`)
      const onA = await Promise.all(sessions.map((session) => servedBy(a, session)))
      const onB = await Promise.all(sessions.map((session) => servedBy(b, session)))
      expect(onB).toEqual(onA)
      // And the sessions do spread: more than one replica serves them.
      expect(new Set(onA).size).toBeGreaterThan(1)
      expect(onA.every((host) => replicas.some((replica) => replica.host === host))).toBe(true)
    } finally {
      await Promise.all(replicas.map((replica) => replica.close()))
    }
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

  /** Polls `instance` with `secret` until it answers `status`; how long that took after `since`. */
  async function untilAnswered(instance: Instance, secret: string, status: number, since: number): Promise<number> {
    const deadline = since + 10_000
    for (;;) {
      const response = await fetch(`${instance.url}/v1/models`, { headers: authorized(secret) })
      await response.arrayBuffer()
      if (response.status === status) return performance.now() - since
      if (performance.now() > deadline) throw new Error(`${instance.name} never answered ${status}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  it('keys live in Redis: one made through A works on B; revoked through A, or by the CLI, it is refused by B within a second', async () => {
    const [a, b] = await Promise.all([startInstance('a'), startInstance('b')])
    const created = await fetch(`${a.url}/v1/keys`, {
      method: 'POST',
      headers: { ...authorized(key), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'ci-bot', role: 'member' }),
    })
    expect(created.status).toBe(201)
    const bot = (await created.json()) as { id: string; key: string }
    await untilAnswered(b, bot.key, 200, performance.now())
    // B lists it too: one set of keys.
    const listed = (await (await fetch(`${b.url}/v1/keys`, { headers: authorized(key) })).json()) as { data: Array<{ id: string }> }
    expect(listed.data.map((k) => k.id)).toContain(bot.id)

    const revoked = await fetch(`${a.url}/v1/keys/${bot.id}/revoke`, { method: 'POST', headers: authorized(key) })
    expect(revoked.status).toBe(200)
    const refusedAfter = await untilAnswered(b, bot.key, 401, performance.now())
    expect(refusedAfter).toBeLessThan(1_000)
    const refusal = await fetch(`${b.url}/v1/models`, { headers: authorized(bot.key) })
    expect(await refusal.json()).toMatchObject({ error: { code: 'revoked_api_key' } })

    // The CLI, against the same Redis: what it makes works everywhere, what it revokes stops everywhere.
    const made = await keysCommand(['create', '--name', 'from-cli', '--json', '--home', home, '--redis', redis.url])
    expect(made.code).toBe(0)
    const cliKey = JSON.parse(made.out[0]!) as { id: string; key: string }
    await Promise.all([untilAnswered(a, cliKey.key, 200, performance.now()), untilAnswered(b, cliKey.key, 200, performance.now())])
    const since = performance.now()
    expect((await keysCommand(['revoke', cliKey.id, '--home', home, '--redis', redis.url])).code).toBe(0)
    const [onA, onB] = await Promise.all([untilAnswered(a, cliKey.key, 401, since), untilAnswered(b, cliKey.key, 401, since)])
    expect(Math.max(onA, onB)).toBeLessThan(1_000)
  })

  it('Redis unreachable: key changes are refused with keys_unavailable, known keys work for the configured bound, then are refused until Redis is back', async () => {
    // The CLI finds the cluster's Redis in config.json, as the instances could.
    writeFileSync(join(home, 'config.json'), JSON.stringify({ version: 1, cluster: { redis: redis.url, keyCacheSeconds: 2 } }))
    const a = await startInstance('a')
    expect((await fetch(`${a.url}/v1/models`, { headers: authorized(key) })).status).toBe(200)
    await redis.kill()
    // Within the bound the copy still answers: asked at once, well inside its 2 s.
    expect((await fetch(`${a.url}/v1/models`, { headers: authorized(key) })).status).toBe(200)
    await untilRedis(a, 'unavailable')
    const change = await fetch(`${a.url}/v1/keys`, {
      method: 'POST',
      headers: { ...authorized(key), 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'not-now' }),
    })
    expect(change.status).toBe(503)
    expect(change.headers.get('x-should-retry')).toBe('true')
    expect(await change.json()).toMatchObject({ error: { code: 'keys_unavailable', type: 'server_error' } })
    await untilAnswered(a, key, 503, performance.now())
    const refused = await fetch(`${a.url}/v1/chat/completions`, {
      method: 'POST',
      headers: authorized(key),
      body: JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(refused.status).toBe(503)
    expect(await refused.json()).toMatchObject({ error: { code: 'keys_unavailable', message: expect.stringContaining('Redis') } })
    // The CLI says it cannot reach Redis, and changes nothing.
    await expect(keysCommand(['list', '--home', home])).rejects.toThrow(/Cannot reach Redis at redis:\/\/127\.0\.0\.1:\d+/)
    await redis.restart()
    await untilAnswered(a, key, 200, performance.now())
  })
})
