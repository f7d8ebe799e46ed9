import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { deepFreeze, Derived, ElementResults, frozenThroughout } from './element-results'

describe('what is frozen throughout, and what is kept with it', () => {
  it('tells what is frozen throughout from what is frozen alone', () => {
    const inner = { b: [1] }
    const frozen = deepFreeze({ a: inner })
    expect([frozenThroughout(frozen), frozenThroughout(inner), frozenThroughout(inner.b)]).toEqual([true, true, true])
    // Frozen alone, what it holds may still change.
    expect(frozenThroughout(Object.freeze({ a: { b: 1 } }))).toBe(false)
    expect(frozenThroughout({})).toBe(false)
    expect([frozenThroughout('text'), frozenThroughout(null)]).toEqual([true, true])
  })

  it('derives once per unchanging input, frozen, and anew for any other', () => {
    let calls = 0
    const doubled = new Derived((input: { n: number }) => {
      calls++
      return { twice: input.n * 2 }
    })
    const remembered = deepFreeze({ n: 2 })
    const first = doubled.of(remembered)
    expect(doubled.of(remembered)).toBe(first)
    expect(first).toEqual({ twice: 4 })
    expect(frozenThroughout(first)).toBe(true)
    expect(calls).toBe(1)
    const fresh = { n: 3 }
    expect(doubled.of(fresh)).toEqual({ twice: 6 })
    expect(doubled.of(fresh)).not.toBe(doubled.of(fresh))
    // Frozen alone, an input may hold what changes: derived anew each time as well.
    const alone = Object.freeze({ n: 4, more: { changes: true } })
    expect(doubled.of(alone)).toEqual({ twice: 8 })
    expect(doubled.of(alone)).not.toBe(doubled.of(alone))
    expect(calls).toBe(7)
  })

  it('gives an unchanging element the same output on every call, of the hand-checked shapes too', () => {
    const schema = z.object({ role: z.string(), content: z.string() })
    const results = new ElementResults(schema, (element) => {
      const value = element as { role?: unknown; content?: unknown }
      return typeof value.role === 'string' && typeof value.content === 'string' ? { role: value.role, content: value.content } : undefined
    })
    const elements = [deepFreeze({ role: 'user', content: 'hi' }), { role: 'assistant', content: 'hello' }]
    const unchanging = (element: unknown) => element === elements[0]
    const first = results.all(elements, unchanging)!
    const again = results.all(elements, unchanging)!
    expect(again).toEqual([
      { role: 'user', content: 'hi' },
      { role: 'assistant', content: 'hello' },
    ])
    expect(again[0]).toBe(first[0])
    expect(frozenThroughout(again[0])).toBe(true)
    // What may change is checked each time, and its output is its own.
    expect(again[1]).not.toBe(first[1])
    expect(Object.isFrozen(again[1])).toBe(false)
  })
})
