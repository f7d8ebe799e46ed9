import { describe, expect, it } from 'vitest'
import { KeptByLastItem } from './kept-by-last-item'

const item = (n: number) => Object.freeze({ n })

describe('KeptByLastItem', () => {
  it('finds what was kept of an array in the next one that begins with the same items', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[]; made: string }>()
    const history = [item(0), item(1), item(2)]
    kept.keep({ items: history, made: 'three' }, undefined)
    expect(kept.find([...history, item(3), item(4)])?.made).toBe('three')
    expect(kept.find(history)?.made).toBe('three')
    // Other objects of the same value, another order, or a shorter array: not the same items.
    expect(kept.find([item(0), item(1), item(2), item(3)])).toBeUndefined()
    expect(kept.find([history[1], history[0], history[2], item(3)])).toBeUndefined()
    expect(kept.find(history.slice(0, 2))).toBeUndefined()
  })

  it('keeps one entry per conversation: the one a turn extends is dropped', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[]; made: number }>()
    const first = [item(0), item(1)]
    kept.keep({ items: first, made: 1 }, undefined)
    const second = [...first, item(2)]
    kept.keep({ items: second, made: 2 }, kept.find(second))
    expect(kept.find([...second, item(3)])?.made).toBe(2)
    // The beginning extended is no longer found by its own last item.
    expect(kept.find([...first, item(9)])).toBeUndefined()
  })

  it('keeps and finds arrays whose last item is frozen only, and looks back over the newest items only', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[] }>()
    const open = { n: 0 }
    kept.keep({ items: [item(1), open] }, undefined)
    expect(kept.find([item(1), open, item(2)])).toBeUndefined()
    const history = [item(0)]
    kept.keep({ items: history }, undefined)
    const longer = [...history, ...Array.from({ length: 16 }, (_, n) => item(n + 1))]
    expect(kept.find(longer.slice(0, 16))).toBeDefined()
    expect(kept.find(longer)).toBeUndefined()
  })

  it('matches kept items by its own comparison when given one', () => {
    const byValue = new KeptByLastItem<{ items: readonly unknown[] }>((a, b) => JSON.stringify(a) === JSON.stringify(b))
    const last = item(1)
    byValue.keep({ items: [{ n: 0 }, last] }, undefined)
    expect(byValue.find([{ n: 0 }, last, item(2)])).toBeDefined()
    expect(byValue.find([{ n: 5 }, last, item(2)])).toBeUndefined()
  })

  it('keeps the newest entries only, and finds one only where it fits', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[]; tools: string }>(undefined, 2)
    const arrays = [0, 1, 2].map((n) => [item(n * 10), item(n * 10 + 1)])
    arrays.forEach((items, n) => kept.keep({ items, tools: `tools ${n}` }, undefined))
    // The oldest of three fell out of a ring of two.
    expect(kept.find([...arrays[0]!, item(99)])).toBeUndefined()
    expect(kept.find([...arrays[2]!, item(99)])?.tools).toBe('tools 2')
    expect(kept.find([...arrays[2]!, item(99)], (entry) => entry.tools === 'other tools')).toBeUndefined()
  })
})
