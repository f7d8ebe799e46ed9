import { describe, expect, it } from 'vitest'
import { hash32, rendezvousOrder } from './rendezvous'

const replicas = (...ids: string[]) => ids.map((id) => ({ id }))
const keys = Array.from({ length: 400 }, (_, i) => `org\u0000session-${i}`)
const first = (items: readonly { id: string }[], key: string) => rendezvousOrder(items, key)[0]?.id

describe('hash32', () => {
  it('is a 32-bit unsigned integer, the same for the same text', () => {
    for (const text of ['', 'a', 'replica-1\u0000key', 'ünïcode ✓']) {
      const h = hash32(text)
      expect(Number.isInteger(h)).toBe(true)
      expect(h).toBeGreaterThanOrEqual(0)
      expect(h).toBeLessThan(2 ** 32)
      expect(hash32(text)).toBe(h)
    }
  })

  it('spreads inputs that differ by one character', () => {
    const hashes = new Set(Array.from({ length: 1000 }, (_, i) => hash32(`key-${i}`)))
    expect(hashes.size).toBe(1000)
    // The finalizer moves the top bits too, not only the low ones.
    const topBits = new Set(Array.from({ length: 64 }, (_, i) => hash32(`key-${i}`) >>> 28))
    expect(topBits.size).toBeGreaterThan(8)
  })
})

describe('rendezvousOrder', () => {
  it('orders every replica once, the same way each time for one key', () => {
    const items = replicas('a', 'b', 'c', 'd')
    for (const key of keys.slice(0, 20)) {
      const order = rendezvousOrder(items, key)
      expect(order.map((r) => r.id).sort()).toEqual(['a', 'b', 'c', 'd'])
      expect(rendezvousOrder(items, key)).toEqual(order)
      // The order depends on the replicas, not on the order they were listed in.
      expect(rendezvousOrder([...items].reverse(), key).map((r) => r.id)).toEqual(order.map((r) => r.id))
    }
  })

  it('ranks replicas by their weight for the key, highest first', () => {
    const items = replicas('a', 'b', 'c', 'd')
    for (const key of keys.slice(0, 20)) {
      const weights = rendezvousOrder(items, key).map((r) => hash32(r.id + '\u0000' + key))
      expect(weights).toEqual([...weights].sort((x, y) => y - x))
    }
  })

  it('does not change the list it was given', () => {
    const items = replicas('a', 'b', 'c')
    rendezvousOrder(items, 'k')
    expect(items.map((r) => r.id)).toEqual(['a', 'b', 'c'])
  })

  it('gives each replica a fair share of keys', () => {
    const items = replicas('a', 'b', 'c', 'd')
    const counts = new Map<string, number>()
    for (const key of keys) counts.set(first(items, key)!, (counts.get(first(items, key)!) ?? 0) + 1)
    expect(counts.size).toBe(4)
    for (const count of counts.values()) expect(count).toBeGreaterThan(keys.length / 4 / 2)
  })

  it('removing a replica moves only the keys that ranked it first, each to its own second choice', () => {
    const all = replicas('a', 'b', 'c', 'd')
    const withoutB = replicas('a', 'c', 'd')
    const movedTo = new Set<string>()
    for (const key of keys) {
      const order = rendezvousOrder(all, key).map((r) => r.id)
      const now = first(withoutB, key)
      if (order[0] === 'b') {
        expect(now).toBe(order[1])
        movedTo.add(now!)
      } else {
        expect(now).toBe(order[0])
      }
    }
    // A dead replica's keys spread over the others instead of piling onto one.
    expect(movedTo.size).toBe(3)
  })

  it('adding a replica takes keys only for itself', () => {
    const before = replicas('a', 'b', 'c')
    const after = replicas('a', 'b', 'c', 'e')
    let moved = 0
    for (const key of keys) {
      const now = first(after, key)
      if (now !== first(before, key)) {
        expect(now).toBe('e')
        moved++
      }
    }
    expect(moved).toBeGreaterThan(0)
  })
})
