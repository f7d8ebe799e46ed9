import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evictUntil, type SecondChance } from './second-chance'

/** Second chance as a plain list, each eviction from its oldest entry: what evictUntil must do. */
function modelEvict(order: Array<[number, SecondChance]>, keep: number): number[] {
  const dropped: number[] = []
  while (order.length > keep) {
    const [key, entry] = order.shift()!
    if (entry.used) {
      entry.used = false
      order.push([key, entry])
    } else dropped.push(key)
  }
  return dropped
}

describe('evictUntil', () => {
  it('drops what a list evicted from its oldest entry drops, call after call, whatever was added, found or deleted between', () => {
    const step = fc.oneof(
      fc.record({ add: fc.integer({ min: 1, max: 4 }) }),
      fc.record({ find: fc.nat() }),
      fc.record({ remove: fc.nat() }),
      fc.record({ keep: fc.nat(6) }),
    )
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const map = new Map<number, SecondChance>()
        const model: Array<[number, SecondChance]> = []
        let next = 0
        for (const s of steps) {
          if ('add' in s) {
            for (let i = 0; i < s.add; i++) {
              map.set(next, { used: false })
              model.push([next, { used: false }])
              next++
            }
          } else if ('find' in s && model.length > 0) {
            const key = model[s.find % model.length]![0]
            map.get(key)!.used = true
            model.find(([k]) => k === key)![1].used = true
          } else if ('remove' in s && model.length > 0) {
            const [key] = model.splice(s.remove % model.length, 1)[0]!
            map.delete(key)
          } else if ('keep' in s) {
            const dropped: number[] = []
            evictUntil(map, () => map.size <= s.keep, (key) => {
              map.delete(key)
              dropped.push(key)
            })
            expect(dropped).toEqual(modelEvict(model, s.keep))
            expect([...map.keys()]).toEqual(model.map(([key]) => key))
          }
        }
      }),
      { numRuns: 2000 },
    )
  })
})
