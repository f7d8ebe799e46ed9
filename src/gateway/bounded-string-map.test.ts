import { describe, expect, it } from 'vitest'
import { BoundedStringMap } from './bounded-string-map'

describe('BoundedStringMap', () => {
  it('drops the least recently used entries first, counting keys and declared value sizes', () => {
    const map = new BoundedStringMap<number>(40)
    map.set('aaaaaaaaaa', 1) // 10
    map.set('bbbbbbbbbb', 2, 5) // 15
    map.set('cccccccccc', 3) // 10 → 35
    expect(map.get('aaaaaaaaaa')).toBe(1) // now most recent
    map.set('dddddddddd', 4) // 45 > 40: b (least recent) goes
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
})
