import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { deepFreeze } from '../../shared/api/element-results'
import { ENTRIES_SIZE_KEPT } from '../../shared/api/kept-by-last-item'
import { FEWEST_KEPT_ITEMS, JsonTextCache, SHORTEST_KEPT_STRING } from './json-text'
import { outgoingBytes, outgoingText } from './json-splice'

// Long strings: a random head on a long run, so that generating them stays cheap.
const longText = fc.tuple(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('a', 'é"\\\n', '\u2028')).map(([head, unit]) => head + unit.repeat(Math.ceil(SHORTEST_KEPT_STRING / unit.length)))
// Request-like data: parsed JSON, long strings among them, and properties left undefined.
const value = fc.letrec((tie) => ({
  any: fc.oneof(
    { depthSize: 'small' },
    fc.jsonValue(),
    longText,
    fc.array(tie('any')),
    fc.dictionary(fc.string(), fc.oneof(tie('any'), fc.constant(undefined))),
  ),
})).any

describe('JsonTextCache', () => {
  it('writes exactly what JSON.stringify writes, the first time and when it remembers', () => {
    const cache = new JsonTextCache()
    fc.assert(
      fc.property(value, (v) => {
        expect(cache.stringify(v)).toBe(JSON.stringify(v))
        expect(cache.stringify(structuredClone(v))).toBe(JSON.stringify(v))
      }),
    )
  })

  it('encodes for a model server exactly what JSON.stringify writes: its text, and the same text in its bytes, long strings as remembered bytes', () => {
    const cache = new JsonTextCache()
    fc.assert(
      fc.property(value, (v) => {
        for (const round of [v, structuredClone(v)]) {
          const body = cache.encode(round)
          const expected = JSON.stringify(v)
          expect(outgoingText(body)).toBe(expected)
          const bytes = outgoingBytes(body)
          if (typeof bytes === 'string') expect(bytes).toBe(expected)
          else {
            expect(bytes.joined().toString('utf8')).toBe(expected)
            expect(bytes.length).toBe(Buffer.byteLength(expected))
          }
        }
      }),
    )
    // A long string's bytes are made once and taken again as they are.
    const long = { messages: [{ role: 'system', content: 'é'.repeat(SHORTEST_KEPT_STRING) }] }
    const first = outgoingBytes(cache.encode(long))
    const again = outgoingBytes(cache.encode(structuredClone(long)))
    expect(typeof first).toBe('object')
    expect(typeof again === 'object' && typeof first === 'object' && again.chunks.some((chunk) => first.chunks.includes(chunk))).toBe(true)
  })

  it('writes a value echoing a text exactly as JSON.stringify does, remembering the text only when it is long', () => {
    const cache = new JsonTextCache()
    fc.assert(
      fc.property(fc.oneof(longText, fc.string()), value, (echoed, rest) => {
        const reply = { type: 'response.created', response: { id: 'resp_1', instructions: echoed, output: [rest] }, sequence_number: 0 }
        const before = cache.size.entries
        expect(cache.stringifyEchoing(reply, echoed)).toBe(JSON.stringify(reply))
        const sent = cache.encodeEchoing(reply, echoed)
        expect(typeof sent === 'string' ? sent : Buffer.concat(sent.bytes.chunks).toString()).toBe(JSON.stringify(reply))
        if (typeof sent !== 'string') expect(sent.bytes.length).toBe(Buffer.byteLength(JSON.stringify(reply)))
        if (echoed.length >= SHORTEST_KEPT_STRING) expect(cache.quote(echoed)).toBe(JSON.stringify(echoed))
        else expect(cache.size.entries).toBe(before)
      }),
    )
    const system = 'You are a coding agent. "Quote" me\n'.repeat(100)
    const fresh = new JsonTextCache()
    fresh.stringifyEchoing({ instructions: system }, system)
    expect(fresh.size.entries).toBe(1)
    expect(fresh.stringifyEchoing({ instructions: system, tools: [] }, system)).toBe(JSON.stringify({ instructions: system, tools: [] }))
    expect(fresh.size.entries).toBe(1)
    expect(fresh.stringifyEchoing({ instructions: null }, null)).toBe('{"instructions":null}')
  })

  it('writes array holes and left-out values as JSON.stringify does', () => {
    const cache = new JsonTextCache()
    const v = { a: undefined, b: [undefined, () => 1, Symbol('s'), null, 1.5, -0, Number.NaN], c: { d: undefined }, e: new Date(0), 'k"\n': 'x'.repeat(600) }
    expect(cache.stringify(v)).toBe(JSON.stringify(v))
  })

  it('finds a long text by its content, from another string of the same characters', () => {
    const cache = new JsonTextCache()
    const text = 'line "one"\n\ttwo ' + 'é'.repeat(SHORTEST_KEPT_STRING)
    const first = cache.quote(text)
    const again = JSON.parse(JSON.stringify({ text })).text as string
    expect(cache.quote(again)).toBe(first)
    expect(cache.size.entries).toBe(1)
    // Short texts are not kept.
    cache.quote('short')
    expect(cache.size.entries).toBe(1)
  })

  it('stays within its budget, and is still exact after dropping texts', () => {
    const cache = new JsonTextCache(400_000)
    const texts = Array.from({ length: 40 }, (_, i) => `${i}:` + 'ab\\"'.repeat(SHORTEST_KEPT_STRING / 4))
    for (const text of [...texts, ...texts]) expect(cache.quote(text)).toBe(JSON.stringify(text))
    expect(cache.size.chars).toBeLessThanOrEqual(400_000)
    expect(cache.size.entries).toBeGreaterThan(0)
  })

  it('keeps the JSON of items that never change, and writes any other as it is now', () => {
    const cache = new JsonTextCache()
    fc.assert(
      fc.property(fc.array(value, { maxLength: 4 }), fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }), (items, frozen) => {
        const messages = items.map((item, i) => (frozen[i] === true ? deepFreeze(structuredClone(item)) : item))
        for (let round = 0; round < 2; round++) {
          const body = cache.encode({ model: 'm', messages })
          const expected = JSON.stringify({ model: 'm', messages })
          expect(outgoingText(body)).toBe(expected)
          const bytes = outgoingBytes(body)
          expect(typeof bytes === 'string' ? bytes : bytes.joined().toString('utf8')).toBe(expected)
        }
      }),
    )
    // A long unchanging item's bytes, all of it, are made once and sent again as they are.
    const long = deepFreeze({ role: 'tool', content: 'é'.repeat(SHORTEST_KEPT_STRING) })
    const first = outgoingBytes(cache.encode({ messages: [long] }))
    const again = outgoingBytes(cache.encode({ messages: [{ role: 'user', content: 'new' }, long] }))
    const shared = typeof first === 'object' && typeof again === 'object' ? again.chunks.filter((chunk) => first.chunks.includes(chunk)) : []
    expect(shared.map((chunk) => chunk.toString('utf8'))).toEqual([JSON.stringify(long)])
    // Frozen by hand, an item may hold what changes: it is written as it is each time.
    const inner = { text: 'before' }
    const item = Object.freeze({ inner })
    cache.encode({ messages: [item] })
    inner.text = 'after'
    expect(outgoingText(cache.encode({ messages: [item] }))).toBe(JSON.stringify({ messages: [item] }))
  })

  it('writes a conversation that extends one written before exactly as JSON.stringify does, however it grows, branches or changes', () => {
    // A pool of items, each frozen (a remembered element) or not, sent as conversations that
    // grow, drop their last items, take copies (equal, other objects) or other items in place.
    const item = fc.oneof(value, fc.record({ role: fc.constantFrom('system', 'user', 'tool'), content: fc.oneof(fc.string(), longText) }))
    const step = fc.record({
      drop: fc.nat({ max: 2 }),
      add: fc.array(fc.nat(), { maxLength: FEWEST_KEPT_ITEMS }),
      copyAt: fc.option(fc.nat(), { nil: undefined }),
      changeAt: fc.option(fc.nat(), { nil: undefined }),
    })
    fc.assert(
      fc.property(fc.array(fc.tuple(item, fc.boolean()), { minLength: 1, maxLength: 6 }), fc.array(step, { minLength: 1, maxLength: 6 }), (pool, steps) => {
        const cache = new JsonTextCache()
        const items = pool.map(([v, frozen]) => (frozen ? deepFreeze(structuredClone(v)) : v))
        let messages: unknown[] = []
        for (const [n, { drop, add, copyAt, changeAt }] of steps.entries()) {
          messages = [...messages.slice(0, Math.max(0, messages.length - drop)), ...add.map((k) => items[k % items.length])]
          if (copyAt !== undefined && messages.length > 0) messages[copyAt % messages.length] = structuredClone(messages[copyAt % messages.length])
          // An item that is not frozen may change between two turns (written before, it must not be taken as it was).
          const changed = changeAt === undefined || messages.length === 0 ? undefined : messages[changeAt % messages.length]
          if (typeof changed === 'object' && changed !== null && !Array.isArray(changed) && !Object.isFrozen(changed)) (changed as Record<string, unknown>).content = `changed ${n}`
          const sent = { model: 'm', messages, stream: false }
          const body = cache.encode(sent)
          const expected = JSON.stringify(sent)
          expect(outgoingText(body)).toBe(expected)
          const bytes = outgoingBytes(body)
          expect(typeof bytes === 'string' ? bytes : bytes.joined().toString('utf8')).toBe(expected)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('writes again what it wrote of a conversation of unchanging items, and looks up only the items after it', () => {
    const cache = new JsonTextCache()
    const turn = (n: number) => deepFreeze({ role: n % 2 === 0 ? 'assistant' : 'tool', content: `short ${n}` })
    const system = deepFreeze({ role: 'system', content: 's'.repeat(SHORTEST_KEPT_STRING) })
    const history = [system, ...Array.from({ length: FEWEST_KEPT_ITEMS - 1 }, (_, n) => turn(n))]
    const chunksOf = (messages: unknown[]) => {
      const bytes = outgoingBytes(cache.encode({ model: 'm', messages }))
      if (typeof bytes === 'string') throw new Error('expected chunks')
      return bytes.chunks
    }
    const shortRun = history.slice(1).map((item) => `,${JSON.stringify(item)}`).join('')
    expect(chunksOf(history).map((chunk) => chunk.toString('utf8'))).toContain(shortRun)
    // The short items' text after the system prompt was made into bytes once, and kept: each later turn sends those very bytes.
    const answered = [...history, turn(FEWEST_KEPT_ITEMS)]
    const kept = chunksOf(answered).find((chunk) => chunk.toString('utf8').includes(shortRun))
    expect(kept).toBeDefined()
    expect(chunksOf([...answered, turn(FEWEST_KEPT_ITEMS + 1)])).toContain(kept)
    // A shorter conversation is written item by item each time, not kept.
    const short = history.slice(0, FEWEST_KEPT_ITEMS - 1)
    const once = chunksOf(short)
    expect(chunksOf([...short]).filter((chunk) => once.includes(chunk) && chunk.length < SHORTEST_KEPT_STRING)).toEqual([])
    // Only an unchanging array is kept: one with an item that may change is written anew each time.
    const mutable = { role: 'user', content: 'may change' }
    const withMutable = [...history, mutable, turn(4)]
    chunksOf(withMutable)
    mutable.content = 'changed'
    expect(outgoingText(cache.encode({ messages: [...withMutable, turn(5)] }))).toBe(JSON.stringify({ messages: [...withMutable, turn(5)] }))
  })
  it("keeps what it wrote of conversations within a size, however small each one's last item", () => {
    const cache = new JsonTextCache()
    // Conversations of ~600 KB, each ending with a short item: twenty of them are past the size.
    const conversationOf = (n: number) =>
      Array.from({ length: FEWEST_KEPT_ITEMS + 2 }, (_, i) =>
        deepFreeze({ role: 'user', content: i === FEWEST_KEPT_ITEMS + 1 ? `last ${n}` : `${n}/${i} `.repeat(12_000) }),
      )
    let written = 0
    for (let n = 0; n < 20; n++) {
      const messages = conversationOf(n)
      const bytes = outgoingBytes(cache.encode({ messages }))
      written += bytes.length
      expect(cache.size.arrayBytes).toBeLessThanOrEqual(ENTRIES_SIZE_KEPT)
    }
    expect(written).toBeGreaterThan(ENTRIES_SIZE_KEPT)
    // Full, not empty: the newest conversations are held.
    expect(cache.size.arrayBytes).toBeGreaterThan(ENTRIES_SIZE_KEPT - 1_000_000)
  })
})
