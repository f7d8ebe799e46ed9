import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InFlightDedupe, type LeadGeneration } from '../pipeline/in-flight-dedupe'
import type { JsonReply } from '../pipeline/respond-json'
import { redisAvailable, startRedisServer, type RedisServer } from '../../test-kit/redis-server'
import { ClusterDedupe } from './cluster-dedupe'
import { RedisLink } from './redis-link'

/** A generation the test ends by hand, telling when it was aborted. */
function generation() {
  let finish: (reply: JsonReply | undefined) => void = () => undefined
  const reply = new Promise<JsonReply | undefined>((resolve) => (finish = resolve))
  let aborts = 0
  let onAbort: () => void = () => undefined
  const aborted = new Promise<void>((resolve) => (onAbort = resolve))
  const lead = (): LeadGeneration => ({
    reply,
    abort: () => {
      aborts++
      onAbort()
    },
    release: () => undefined,
  })
  return { lead, finish, aborted, aborts: () => aborts }
}

const describeWithRedis = redisAvailable() ? describe : describe.skip

describeWithRedis('ClusterDedupe: who keeps a shared generation going (a real Redis)', () => {
  let redis: RedisServer
  const links: RedisLink[] = []
  const dedupes: ClusterDedupe[] = []

  async function instance(name: string) {
    const link = new RedisLink(redis.url, () => undefined)
    await link.connect()
    links.push(link)
    const dedupe = new ClusterDedupe(link, name, new InFlightDedupe())
    dedupes.push(dedupe)
    await link.subscriber.ping()
    // Whatever this instance sent Redis before has been done once this answers.
    return { dedupe, settled: () => link.commands.ping() }
  }

  beforeAll(async () => {
    redis = await startRedisServer()
  })

  afterAll(async () => {
    for (const dedupe of dedupes) dedupe.close()
    for (const link of links) link.close()
    await redis.stop()
  })

  it("goes on when the leader's participants leave while a follower elsewhere waits, and stops when that one leaves too", async () => {
    const [a, b] = await Promise.all([instance('a'), instance('b')])
    const generated = generation()
    const led = await a.dedupe.join('org', 'k1', 'fp', 'chatcmpl-1', generated.lead)
    const followed = await b.dedupe.join('org', 'k1', 'fp', 'chatcmpl-2', () => generation().lead())
    expect([led.role, followed.role, followed.id]).toEqual(['leader', 'shared', 'chatcmpl-1'])
    await b.settled()
    led.leave()
    await a.settled()
    await a.settled()
    expect(generated.aborts()).toBe(0)
    followed.leave()
    await generated.aborted
    expect(generated.aborts()).toBe(1)
    generated.finish(undefined)
  })

  it('a leader nobody follows elsewhere stops once its own participants have left', async () => {
    const c = await instance('c')
    const generated = generation()
    const first = await c.dedupe.join('org', 'k2', 'fp', 'chatcmpl-3', generated.lead)
    const second = await c.dedupe.join('org', 'k2', 'fp', 'chatcmpl-4', () => generation().lead())
    expect(second.id).toBe('chatcmpl-3')
    first.leave()
    second.leave()
    await generated.aborted
    expect(generated.aborts()).toBe(1)
    generated.finish(undefined)
  })

  it('a participant arriving at the leader again, while only a follower elsewhere kept it going, keeps it going when that follower leaves', async () => {
    const [d, e] = await Promise.all([instance('d'), instance('e')])
    const generated = generation()
    const led = await d.dedupe.join('org', 'k3', 'fp', 'chatcmpl-5', generated.lead)
    const followed = await e.dedupe.join('org', 'k3', 'fp', 'chatcmpl-6', () => generation().lead())
    await e.settled()
    led.leave()
    await d.settled()
    const again = await d.dedupe.join('org', 'k3', 'fp', 'chatcmpl-7', () => generation().lead())
    expect(again.id).toBe('chatcmpl-5')
    followed.leave()
    await e.settled()
    await e.settled()
    await d.settled()
    expect(generated.aborts()).toBe(0)
    again.leave()
    await generated.aborted
    expect(generated.aborts()).toBe(1)
    generated.finish(undefined)
  })
})
