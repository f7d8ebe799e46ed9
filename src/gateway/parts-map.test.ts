import { describe, expect, it } from 'vitest'
import { longestPart, PartsMap, sampledFingerprint } from './parts-map'

/** A fresh copy of a string (same text, another object), as JSON.parse makes for every request. */
const copy = (text: string): string => JSON.parse(JSON.stringify(text)) as string

describe('PartsMap', () => {
  it.each([
    ['a sampled fingerprint', sampledFingerprint],
    ['the longest part', longestPart],
  ])('finds a text by equal parts in other string objects, and only by exactly those parts, keyed by %s', (_, key) => {
    const map = new PartsMap<number>(1000, key)
    const history = 'x'.repeat(100) + 'the history'
    map.set(['user\n', history], 7)
    expect(map.get(['user\n', copy(history)])).toBe(7)
    // The same text split differently is a miss, not a wrong value.
    expect(map.get(['user\n' + history])).toBeUndefined()
    // One character changed anywhere, also where no sample falls, is a miss.
    for (let at = 0; at < history.length; at++) {
      const changed = history.slice(0, at) + (history[at] === 'y' ? 'z' : 'y') + history.slice(at + 1)
      expect(map.get(['user\n', changed])).toBeUndefined()
    }
    expect(map.get(['user\n', history, ''])).toBeUndefined()
    expect(map.get(['assistant\n', history])).toBeUndefined()
  })

  it('keeps its own list of the parts: changing the caller\'s list afterwards changes nothing', () => {
    const map = new PartsMap<number>(1000)
    const parts = ['a'.repeat(20), 'b'.repeat(20)]
    map.set(parts, 1)
    parts[1] = 'c'.repeat(20)
    expect(map.get(['a'.repeat(20), 'b'.repeat(20)])).toBe(1)
    expect(map.get(parts)).toBeUndefined()
  })

  it('drops the entries unused longest first, counting the parts and declared value sizes', () => {
    const map = new PartsMap<number>(40)
    map.set(['aaaaa', 'aaaaa'], 1) // 10
    map.set(['bbbbbbbbbb'], 2, 5) // 15
    map.set(['cccccccccc'], 3) // 10 → 35
    expect(map.get(['aaaaa', 'aaaaa'])).toBe(1) // marked used: passed over once
    map.set(['dddddddddd'], 4) // 45 > 40: a is passed over, b (unused) goes
    expect(map.get(['bbbbbbbbbb'])).toBeUndefined()
    expect([map.get(['aaaaa', 'aaaaa']), map.get(['cccccccccc']), map.get(['dddddddddd'])]).toEqual([1, 3, 4])
    expect(map.size).toEqual({ entries: 3, chars: 30 })
  })

  it('keeps an entry found again and again, however often it is found, while others come and go', () => {
    const map = new PartsMap<number>(100, longestPart)
    map.set(['\n'], 1)
    for (let i = 0; i < 1_000; i++) {
      map.set([`other ${i}`.padEnd(20)], i)
      expect(map.get(['\n'])).toBe(1)
      expect(map.get(['\n'])).toBe(1)
    }
    expect(map.size.chars).toBeLessThanOrEqual(100)
    expect(map.get(['other 999'.padEnd(20)])).toBe(999)
    expect(map.get(['other 0'.padEnd(20)])).toBeUndefined()
  })

  it('keeps no entry larger than a quarter of its budget, and gives a kept text its new value in its entry', () => {
    const map = new PartsMap<number>(40)
    map.set(['x'.repeat(6), 'x'.repeat(5)], 1)
    expect(map.size.entries).toBe(0)
    map.set(['y'], 1)
    map.set(['y'], 2)
    expect(map.get(['y'])).toBe(2)
    expect(map.size).toEqual({ entries: 1, chars: 1 })
  })

  it('holds texts that share a fingerprint apart, at most 8 of them, without passing its budget', () => {
    const map = new PartsMap<number>(100_000)
    // Same length, same sampled characters (of 65, the fingerprint reads 0, 4, 8, 12, 17…), different in between.
    const between = [1, 2, 3, 5]
    const colliding = (i: number) => Array.from({ length: 65 }, (_, at) => (between.includes(at) && (i >> between.indexOf(at)) & 1 ? 'c' : 'a')).join('')
    const texts = Array.from({ length: 12 }, (_, i) => colliding(i))
    expect(new Set(texts).size).toBe(12)
    texts.forEach((text, i) => map.set([text], i))
    expect(map.size.entries).toBe(8)
    // The first four went; the last eight are found, each with its own value.
    texts.forEach((text, i) => expect(map.get([copy(text)])).toBe(i < 4 ? undefined : i))
    expect(map.size.chars).toBe(8 * 65)
  })

  it('never holds more than its budget, however many texts come', () => {
    const map = new PartsMap<number>(10_000)
    for (let i = 0; i < 2_000; i++) map.set([`text ${i} `.repeat(5)], i, 10)
    expect(map.size.chars).toBeLessThanOrEqual(10_000)
    expect(map.get([`text 1999 `.repeat(5)])).toBe(1999)
    expect(map.get([`text 0 `.repeat(5)])).toBeUndefined()
  })
})
