import { describe, expect, it } from 'vitest'
import { rendezvousOrder } from './rendezvous'
import { ReplicaPool, type ReplicaSettings } from './replica-pool'

const DOWN_MS = 1_000

function settings(...ids: string[]): ReplicaSettings[] {
  return ids.map((id, i) => ({
    id,
    baseUrl: new URL(`http://127.0.0.1:${8000 + i}/v1`),
    apiKey: undefined,
    model: undefined,
    timeoutMs: 10_000,
    idleTimeoutMs: 10_000,
  }))
}

/** A pool on a clock the test moves by hand. */
function poolOf(...ids: string[]) {
  const clock = { now: 1_000_000 }
  const pool = new ReplicaPool(settings(...ids), DOWN_MS, () => clock.now)
  const byId = (id: string) => pool.replicas.find((r) => r.id === id)!
  const order = (key?: string) => pool.candidates(key).map((r) => r.id)
  return { clock, pool, byId, order }
}

describe('ReplicaPool', () => {
  it('starts every replica unknown and never seen, accepting stream_options', () => {
    const { pool } = poolOf('a', 'b')
    for (const replica of pool.replicas) {
      expect(replica).toMatchObject({ downUntil: 0, reachable: null, acceptsStreamOptions: true })
      expect(replica.record).toEqual({ lastOkAt: 0, lastError: null, lastErrorAt: 0, checkedAt: 0 })
    }
  })

  it('spreads requests without a session round-robin, each offering every replica', () => {
    const { order } = poolOf('a', 'b', 'c')
    expect([order(), order(), order(), order()]).toEqual([
      ['a', 'b', 'c'],
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['a', 'b', 'c'],
    ])
  })

  it('sends a named session to its rendezvous order every time', () => {
    const { pool, order } = poolOf('a', 'b', 'c')
    const expected = rendezvousOrder(pool.replicas, 'org\u0000s1').map((r) => r.id)
    expect(order('org\u0000s1')).toEqual(expected)
    expect(order('org\u0000s1')).toEqual(expected)
  })

  it('tries a replica that refused a connection last, until downMs has passed', () => {
    const { clock, pool, byId, order } = poolOf('a', 'b', 'c')
    pool.markDown(byId('a'), 'unreachable (ECONNREFUSED)')
    // The healthy ones keep their round-robin turns; the down one goes to the back of each.
    expect([order(), order(), order()]).toEqual([
      ['b', 'c', 'a'],
      ['b', 'c', 'a'],
      ['c', 'b', 'a'],
    ])
    clock.now += DOWN_MS - 1
    expect(order().at(-1)).toBe('a')
    clock.now += 1
    // Back in its round-robin turn (the fifth request starts at the second replica).
    expect([order(), order(), order()]).toEqual([
      ['b', 'c', 'a'],
      ['c', 'a', 'b'],
      ['a', 'b', 'c'],
    ])
  })

  it('still offers down replicas when all are down, so a request goes somewhere', () => {
    const { pool, byId, order } = poolOf('a', 'b')
    pool.markDown(byId('a'), 'x')
    pool.markDown(byId('b'), 'y')
    expect(order().sort()).toEqual(['a', 'b'])
  })

  it("moves a down session's key to its next choice and back once it is up", () => {
    const { pool, byId, order } = poolOf('a', 'b', 'c')
    const key = 'org\u0000s2'
    const [firstChoice, ...rest] = order(key)
    pool.markDown(byId(firstChoice!), 'refused')
    expect(order(key)).toEqual([...rest, firstChoice])
    pool.markUp(byId(firstChoice!))
    expect(order(key)[0]).toBe(firstChoice)
  })

  it('records what it has seen of a replica, with the time', () => {
    const { clock, pool, byId } = poolOf('a')
    const a = byId('a')
    pool.markDown(a, 'unreachable (ECONNREFUSED)')
    expect(a.reachable).toBe(false)
    expect(a.downUntil).toBe(clock.now + DOWN_MS)
    expect(a.record).toEqual({ lastOkAt: 0, lastError: 'unreachable (ECONNREFUSED)', lastErrorAt: clock.now, checkedAt: clock.now })

    const downAt = clock.now
    clock.now += 10
    pool.markUp(a)
    expect(a.reachable).toBe(true)
    expect(a.downUntil).toBe(0)
    // The last error stays on record beside the newer success.
    expect(a.record).toEqual({ lastOkAt: clock.now, lastError: 'unreachable (ECONNREFUSED)', lastErrorAt: downAt, checkedAt: clock.now })
  })

  it('notes a request that failed without taking the replica out of its turn', () => {
    const { clock, pool, byId, order } = poolOf('a', 'b')
    const a = byId('a')
    pool.markUp(a)
    clock.now += 5
    pool.noteError(a, 'status 500')
    expect(a.reachable).toBe(true)
    expect(a.downUntil).toBe(0)
    expect(a.record).toMatchObject({ lastError: 'status 500', lastErrorAt: clock.now, checkedAt: clock.now })
    expect(order()).toEqual(['a', 'b'])
  })

  it('reports a silent replica down but keeps trying it in its turn', () => {
    const { clock, pool, byId, order } = poolOf('a', 'b')
    const a = byId('a')
    pool.noteSilent(a, 'no answer to a health check')
    expect(a.reachable).toBe(false)
    expect(a.downUntil).toBe(0)
    expect(a.record).toMatchObject({ lastError: 'no answer to a health check', lastErrorAt: clock.now })
    expect(order()).toEqual(['a', 'b'])
  })
})
