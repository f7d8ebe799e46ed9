import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth'

const nested = (depth: number, open = '[', close = ']') => open.repeat(depth) + close.repeat(depth)

/** The nesting depth of a parsed value, walked without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0
  const stack: Array<[unknown, number]> = [[value, 0]]
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!
    if (typeof item !== 'object' || item === null) continue
    deepest = Math.max(deepest, depth + 1)
    for (const child of Object.values(item)) stack.push([child, depth + 1])
  }
  return deepest
}

describe('jsonNestsDeeperThan', () => {
  it('counts arrays and objects, up to the limit and one past it', () => {
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false)
    expect(jsonNestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true)
    expect(jsonNestsDeeperThan('{"a":'.repeat(65) + '1' + '}'.repeat(65))).toBe(true)
    expect(jsonNestsDeeperThan(nested(100_000))).toBe(true)
  })

  it('ignores brackets inside strings, escaped quotes included', () => {
    expect(jsonNestsDeeperThan(JSON.stringify({ text: '['.repeat(1_000) }))).toBe(false)
    expect(jsonNestsDeeperThan(JSON.stringify({ text: '\\"[[[[' + '"'.repeat(10) + '{'.repeat(100) }))).toBe(false)
    expect(jsonNestsDeeperThan(JSON.stringify(['\\', '[[['.repeat(50)]), 3)).toBe(false)
    expect(jsonNestsDeeperThan(`["\\\\"${'['.repeat(5)}`, 3)).toBe(true)
  })

  it('agrees with the parsed value on any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (value, limit) => {
        expect(jsonNestsDeeperThan(JSON.stringify(value), limit)).toBe(depthOf(value) > limit)
      }),
      { numRuns: 300 },
    )
  })
})
