import { describe, expect, it } from 'vitest'
import { KeptByLastItem } from './kept-by-last-item'

const item = (n: number) => Object.freeze({ n })

describe('KeptByLastItem', () => {
  it('finds what was kept of an array in the next one that begins with the same items', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[]; made: string }>()
    const history = [item(0), item(1), item(2)]
    kept.keep({ items: history, made: 'three' }, undefined, 3)
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
    kept.keep({ items: first, made: 1 }, undefined, 2)
    const second = [...first, item(2)]
    kept.keep({ items: second, made: 2 }, kept.find(second), 3)
    expect(kept.find([...second, item(3)])?.made).toBe(2)
    // The beginning extended is no longer found by its own last item.
    expect(kept.find([...first, item(9)])).toBeUndefined()
  })

  it('keeps and finds arrays whose last item is frozen only, and looks back over the newest items only', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[] }>()
    const open = { n: 0 }
    kept.keep({ items: [item(1), open] }, undefined, 2)
    expect(kept.find([item(1), open, item(2)])).toBeUndefined()
    const history = [item(0)]
    kept.keep({ items: history }, undefined, 1)
    const longer = [...history, ...Array.from({ length: 16 }, (_, n) => item(n + 1))]
    expect(kept.find(longer.slice(0, 16))).toBeDefined()
    expect(kept.find(longer)).toBeUndefined()
  })

  it('matches kept items by its own comparison when given one', () => {
    const byValue = new KeptByLastItem<{ items: readonly unknown[] }>((a, b) => JSON.stringify(a) === JSON.stringify(b))
    const last = item(1)
    byValue.keep({ items: [{ n: 0 }, last] }, undefined, 2)
    expect(byValue.find([{ n: 0 }, last, item(2)])).toBeDefined()
    expect(byValue.find([{ n: 5 }, last, item(2)])).toBeUndefined()
  })

  it('keeps the newest entries only, and finds one only where it fits', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[]; tools: string }>(undefined, 2)
    const arrays = [0, 1, 2].map((n) => [item(n * 10), item(n * 10 + 1)])
    arrays.forEach((items, n) => kept.keep({ items, tools: `tools ${n}` }, undefined, 2))
    // The oldest of three fell out of a ring of two.
    expect(kept.find([...arrays[0]!, item(99)])).toBeUndefined()
    expect(kept.find([...arrays[2]!, item(99)])?.tools).toBe('tools 2')
    expect(kept.find([...arrays[2]!, item(99)], (entry) => entry.tools === 'other tools')).toBeUndefined()
  })
  it('holds entries within a size, the oldest out first; a dropped or extended entry no longer counts', () => {
    const kept = new KeptByLastItem<{ items: readonly unknown[]; n: number }>(undefined, 256, 100)
    const conversation = (n: number) => [item(n * 10), item(n * 10 + 1)]
    const [a, b, c] = [0, 1, 2].map(conversation)
    kept.keep({ items: a!, n: 0 }, undefined, 40)
    kept.keep({ items: b!, n: 1 }, undefined, 40)
    expect(kept.size).toBe(80)
    // A turn of the first conversation: its entry grows, in place of the one it extends.
    const a2 = [...a!, item(2)]
    kept.keep({ items: a2, n: 2 }, kept.find(a2), 50)
    expect(kept.size).toBe(90)
    // A third conversation passes the size: the oldest entry held (the second) goes.
    kept.keep({ items: c!, n: 3 }, undefined, 30)
    expect(kept.size).toBe(80)
    expect(kept.find([...b!, item(99)])).toBeUndefined()
    expect(kept.find([...a2, item(99)])?.n).toBe(2)
    expect(kept.find([...c!, item(99)])?.n).toBe(3)
    // One larger than all that may be held is not kept, and takes the place of nothing.
    const huge = conversation(5)
    kept.keep({ items: huge, n: 5 }, undefined, 101)
    expect(kept.find([...huge, item(99)])).toBeUndefined()
    expect(kept.size).toBe(80)
  })
})
