import { describe, expect, it } from 'vitest'
import { Beginnings, type Beginning } from './known-beginnings'

/** A made beginning of `byteEnd` bytes, its composition and place left empty: what Beginnings itself reads of one. */
const made = (byteEnd: number): Omit<Beginning, 'raw'> => ({
  name: 'messages',
  composed: '{"messages":[',
  placed: [],
  members: new Map(),
  conversationStart: 12,
  deepest: 2,
  elementEnds: undefined,
  byteEnd,
  chars: byteEnd,
  count: 0,
})

describe('Beginnings', () => {
  it('copies into the buffer of the beginning a body continues only the bytes after those it shares', () => {
    const beginnings = new Beginnings(1 << 24)
    const first = Buffer.from('a'.repeat(3000))
    beginnings.keep('org', made(2000), 2000, undefined, { raw: first, byteEnd: 2000 })
    const kept = beginnings.made('org')[0]!
    expect(kept.raw.subarray(0, 2000).equals(first.subarray(0, 2000))).toBe(true)
    // The next turn: the same 2,000 bytes (here told apart, to see which bytes are written), then more.
    const next = Buffer.from('b'.repeat(2000) + 'c'.repeat(1500))
    beginnings.keep('org', made(3000), 3000, kept, { raw: next, byteEnd: 3000, same: { buffer: kept.raw, bytes: 2000 } })
    const continued = beginnings.made('org')[0]!
    expect(continued.raw).toBe(kept.raw)
    expect(continued.raw.toString('latin1', 0, 3000)).toBe('a'.repeat(2000) + 'c'.repeat(1000))
  })

  it('never writes to a buffer a kept beginning still holds', () => {
    const beginnings = new Beginnings(1 << 24)
    const first = Buffer.from('a'.repeat(3000))
    beginnings.keep('org', made(2000), 2000, undefined, { raw: first, byteEnd: 2000 })
    const kept = beginnings.made('org')[0]!
    const before = Buffer.from(kept.raw)
    // Another agent's body that shares those bytes, kept beside it (it replaces nothing).
    const other = Buffer.from('a'.repeat(2000) + 'd'.repeat(1500))
    beginnings.keep('org', made(3000), 3000, undefined, { raw: other, byteEnd: 3000, same: { buffer: kept.raw, bytes: 2000 } })
    const [newest, oldest] = beginnings.made('org')
    expect(oldest).toBe(kept)
    expect(newest!.raw).not.toBe(kept.raw)
    expect(newest!.raw.toString('latin1', 0, 3000)).toBe(other.toString('latin1', 0, 3000))
    expect(kept.raw.equals(before)).toBe(true)
  })
})
