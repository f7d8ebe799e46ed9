import { describe, expect, it } from 'vitest'
import { BoundedStringMap } from './bounded-string-map'

describe('BoundedStringMap', () => {
  it('drops the entries unused longest first, counting keys and declared value sizes', () => {
    const map = new BoundedStringMap<number>(40)
    map.set('aaaaaaaaaa', 1) // 10
    map.set('bbbbbbbbbb', 2, 5) // 15
    map.set('cccccccccc', 3) // 10 → 35
    expect(map.get('aaaaaaaaaa')).toBe(1) // marked used: passed over once
    map.set('dddddddddd', 4) // 45 > 40: a is passed over, b (unused) goes
    expect(map.has('bbbbbbbbbb')).toBe(false)
    expect([map.get('aaaaaaaaaa'), map.get('cccccccccc'), map.get('dddddddddd')]).toEqual([1, 3, 4])
    expect(map.size).toEqual({ entries: 3, chars: 30 })
  })

  it('keeps no entry larger than a quarter of its budget, and never replaces one', () => {
    const map = new BoundedStringMap<number>(40)
    map.set('x'.repeat(11), 1)
    expect(map.size.entries).toBe(0)
    map.set('y', 1)
    map.set('y', 2)
    expect(map.get('y')).toBe(1)
  })

  it('keeps an entry found again and again while others come and go, within its budget', () => {
    const map = new BoundedStringMap<number>(100)
    map.set('hot', 1)
    for (let i = 0; i < 1_000; i++) {
      map.set(`other ${i}`.padEnd(20), i)
      expect(map.get('hot')).toBe(1)
    }
    expect(map.size.chars).toBeLessThanOrEqual(100)
    expect(map.has('other 0'.padEnd(20))).toBe(false)
  })
})
