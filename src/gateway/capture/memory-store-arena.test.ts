import { describe, expect, it } from 'vitest'
import type { CapturedFrame, Exchange } from '../../shared/api/traffic'
import { exchangeListQuerySchema } from '../../shared/api/traffic'
import { ARENA_MIN_CHARS, MemoryStore } from './memory-store'
import { exchangeFixture } from './test-support/exchange-fixture'
import { ByteChunks, viewOffset } from '../http/json-chunks'

const owner = { org: 'default', unattributed: true }
const all = exchangeListQuerySchema.parse({ limit: '500' })

/** A small deterministic generator, so a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

// ASCII, two- and three-byte characters, an emoji (a surrogate pair), a byte-order mark.
const PIECES = ['a', 'json', '{"k":"v"}', '\n', 'é', 'ß', '中文', '😀', '👩‍👩‍👧', '\ufeff', '\u0000']

function text(next: () => number, chars: number, loneSurrogate = false): string {
  let out = ''
  while (out.length < chars) out += PIECES[Math.floor(next() * PIECES.length)]
  if (loneSurrogate) out = out.slice(0, Math.floor(out.length / 2)) + '\ud83d' + out.slice(Math.floor(out.length / 2))
  return out
}

function frames(next: () => number, count: number): CapturedFrame[] {
  return Array.from({ length: count }, (_, i) => ({ t_ms: i * 1.5, raw: `data: ${text(next, 20 + Math.floor(next() * 200))}\n\n` }))
}

/**
 * Header lists as capture records them: none, a few or dozens of pairs, so that packed together
 * they fall on both sides of the arena's threshold; some values with characters beyond ASCII,
 * some with a line feed (which packing leaves as they are).
 */
function headers(next: () => number): [string, string][] {
  return Array.from({ length: Math.floor(next() * next() * 60) }, (_, i) => {
    const value = next() < 0.8 ? `v${i}-${'abc;= /'.repeat(Math.floor(next() * 12))}` : text(next, Math.floor(next() * 40))
    return [next() < 0.5 ? `x-header-${i}` : 'content-type', value]
  })
}

/** An exchange with texts on both sides of the arena's threshold, some of them shared or unencodable. */
function randomExchange(next: () => number, org: string | null = 'default', scale = 4 * ARENA_MIN_CHARS): Exchange {
  const size = () => Math.floor(next() * scale)
  const body = text(next, size(), next() < 0.1)
  const modelBody = next() < 0.2 ? null : next() < 0.4 ? body : text(next, size())
  const streamed = next() < 0.5
  return exchangeFixture({
    org,
    request: { url: '/v1/chat/completions', headers: headers(next), body },
    model_body: modelBody,
    response: { headers: headers(next), frames: streamed ? frames(next, Math.floor(next() * 40)) : [], body: streamed ? null : text(next, size(), next() < 0.1) },
    upstream:
      next() < 0.3
        ? null
        : {
            replica: 'r1',
            body: modelBody ?? text(next, size()),
            status: 200,
            headers: headers(next),
            frames: streamed ? frames(next, Math.floor(next() * 40)) : [],
            response_body: streamed ? null : text(next, size()),
          },
  })
}

/**
 * The pieces of a body sent as a splice makes them: spans of the request body's bytes (views of
 * them) between the gateway's own bytes (up to `ownBytes` of them a piece).
 */
function splicedPieces(next: () => number, received: Buffer, n: number, ownBytes: number): Buffer[] {
  const pieces: Buffer[] = []
  for (let count = Math.floor(next() * 6); count >= 0; count--) {
    if (next() < 0.6) {
      const start = Math.floor(next() * received.length)
      pieces.push(received.subarray(start, start + Math.floor(next() * (received.length - start + 1))))
    } else pieces.push(Buffer.from(`,"own_${n}":${'9'.repeat(Math.floor(next() * ownBytes))}`))
  }
  return pieces
}

/** Everything the store holds reads back exactly as it was added, key order included. */
function expectExact(store: MemoryStore, added: ReadonlyMap<string, Exchange>): void {
  const ids = store.list(owner, all).data.map((row) => row.id)
  for (const id of ids) {
    const original = added.get(id)
    expect(original).toBeDefined()
    const stored = store.get(owner, id)
    expect(stored).toStrictEqual(original)
    expect(JSON.stringify(stored)).toBe(JSON.stringify(original))
  }
  const exported = store.select(owner, {}, undefined)
  expect(exported.map((exchange) => exchange.id)).toEqual(ids)
  for (const exchange of exported) expect(exchange).toStrictEqual(added.get(exchange.id))
}

describe('MemoryStore arena', () => {
  it('gives back random exchanges exactly: non-ASCII, emoji, byte-order marks, lone surrogates, shared texts', () => {
    const next = random(1)
    const store = new MemoryStore({ max_bytes: 1e9, max_exchanges: 1_000 })
    const added = new Map<string, Exchange>()
    for (let i = 0; i < 200; i++) {
      const exchange = randomExchange(next)
      added.set(exchange.id, exchange)
      store.add(exchange)
    }
    expect(store.stats().exchanges).toBe(200)
    expect(store.arenaUse().used).toBeGreaterThan(0)
    expectExact(store, added)
  })

  it('wraps round its slabs, evicting by the byte budget as before, and stops allocating once full', () => {
    const next = random(2)
    const budget = 200_000
    const store = new MemoryStore({ max_bytes: budget, max_exchanges: 10_000 }, 16_384)
    const added = new Map<string, Exchange>()
    let evictedByBudget = 0
    const held: Exchange[] = []
    for (let i = 0; i < 600; i++) {
      const exchange = randomExchange(next)
      added.set(exchange.id, exchange)
      store.add(exchange)
      // What the byte budget alone evicts: the arena must not evict anything more.
      held.push(exchange)
      let bytes = held.reduce((sum, kept) => sum + kept.size_bytes, 0)
      while (held.length > 0 && bytes > budget) {
        bytes -= (held.shift() as Exchange).size_bytes
        evictedByBudget++
      }
      const use = store.arenaUse()
      expect(use.used).toBeLessThanOrEqual(budget)
      expect(use.allocated).toBeLessThanOrEqual(use.capacity)
      if (i % 50 === 0) expectExact(store, added)
    }
    expect(store.stats()).toMatchObject({ exchanges: held.length, evicted: evictedByBudget })
    expect(store.list(owner, all).data.map((row) => row.id)).toEqual(held.map((exchange) => exchange.id).reverse())
    expect(store.arenaUse().capacity).toBe(Math.ceil(budget / 16_384) * 16_384)
    expectExact(store, added)
  })

  it('frees arena space exactly on eviction', () => {
    const body = 'x'.repeat(2_000)
    const store = new MemoryStore({ max_bytes: 1e9, max_exchanges: 3 }, 4_096)
    for (let i = 0; i < 10; i++) {
      store.add(exchangeFixture({ request: { url: '/v1/chat/completions', headers: [], body: `${String(i).padStart(4, '0')}${body}` } }))
      expect(store.arenaUse().used).toBe(Math.min(i + 1, 3) * 2_004)
    }
    expect(store.clear(owner)).toBe(3)
    expect(store.arenaUse().used).toBe(0)
  })

  it('clears one organization and keeps the others exact, closing the gaps', () => {
    const next = random(3)
    const store = new MemoryStore({ max_bytes: 400_000, max_exchanges: 10_000 }, 8_192)
    const added = new Map<string, Exchange>()
    const orgs = ['default', 'other', null]
    const add = (count: number) => {
      for (let i = 0; i < count; i++) {
        const exchange = randomExchange(next, orgs[i % 3] as string | null)
        added.set(exchange.id, exchange)
        store.add(exchange)
      }
    }
    add(300)
    const otherScope = { org: 'other', unattributed: false }
    const otherBefore = store.list(otherScope, all).data.map((row) => row.id)
    const ownerBefore = store.list(owner, all).data.length
    const usedBefore = store.arenaUse().used
    expect(store.clear(owner)).toBe(ownerBefore)
    expect(store.list(owner, all).data).toEqual([])
    expect(store.list(otherScope, all).data.map((row) => row.id)).toEqual(otherBefore)
    expect(store.arenaUse().used).toBeLessThan(usedBefore)
    for (const id of otherBefore) expect(store.get(otherScope, id)).toStrictEqual(added.get(id))
    // The space the cleared ones held is reused: more exchanges wrap over it and everything stays exact.
    add(300)
    for (const row of store.list(otherScope, all).data) expect(store.get(otherScope, row.id)).toStrictEqual(added.get(row.id))
    expectExact(store, added)
    store.clear(otherScope)
    store.clear(owner)
    expect(store.arenaUse().used).toBe(0)
  })

  it('keeps an exchange bigger than a slab across several slabs', () => {
    const next = random(4)
    const store = new MemoryStore({ max_bytes: 1_000_000, max_exchanges: 100 }, 4_096)
    const added = new Map<string, Exchange>()
    for (let i = 0; i < 30; i++) {
      const exchange = randomExchange(next, 'default', 40_000)
      added.set(exchange.id, exchange)
      store.add(exchange)
    }
    expectExact(store, added)
    expect(store.arenaUse().used).toBeGreaterThan(4_096 * 10)
  })

  it('copies the bytes of the body sent when they are at hand and ASCII, across slabs, and reads them back exactly', () => {
    const next = random(5)
    const store = new MemoryStore({ max_bytes: 400_000, max_exchanges: 100 }, 4_096)
    const added = new Map<string, Exchange>()
    for (let i = 0; i < 40; i++) {
      const ascii = i % 3 !== 2
      // A spliced body: the text joined with `+` from pieces, the bytes those pieces encoded.
      const pieces = Array.from({ length: 1 + Math.floor(next() * 4) }, () => (ascii ? 'x'.repeat(Math.floor(next() * 6_000)) + `{"n":${i}}` : text(next, Math.floor(next() * 6_000))))
      const sent = pieces.reduce((joined, piece) => joined + piece, '')
      const bytes = new ByteChunks(pieces.map((piece) => Buffer.from(piece)))
      const base = randomExchange(next)
      const exchange = { ...base, model_body: sent, upstream: { replica: 'r1', body: sent, status: 200, headers: [], frames: [], response_body: null } }
      added.set(exchange.id, exchange)
      // Every third one is not ASCII: its bytes are not one per character, so the text is written.
      const requestBody = ascii ? Buffer.from(exchange.request.body) : undefined
      store.add(exchange, { sentBody: bytes, requestBody, modelBodySent: true })
    }
    expectExact(store, added)
    // The bytes of a text that is not ASCII (more bytes than characters) are not copied: the text is written.
    const wide = 'é'.repeat(5_000)
    const exchange = { ...randomExchange(next), model_body: wide, upstream: { replica: 'r1', body: wide, status: 200, headers: [], frames: [], response_body: null } }
    store.add(exchange, { sentBody: Buffer.from(wide), modelBodySent: true })
    expect(store.get(owner, exchange.id)).toStrictEqual(exchange)
  })

  it('keeps a body sent spliced from the request body as pieces of that body: exact through slabs, eviction, wrap-round and clear', () => {
    const next = random(8)
    const limits = { max_bytes: 300_000, max_exchanges: 10_000 }
    const referring = new MemoryStore(limits, 4_096)
    const copying = new MemoryStore(limits, 4_096)
    const added = new Map<string, Exchange>()
    const orgs = ['default', 'other']
    let saved = 0
    const add = (count: number) => {
      for (let i = 0; i < count; i++) {
        const received = Buffer.from('{"messages":[' + 'abc {\\"k\\":\\"v\\"},'.repeat(1 + Math.floor(next() * 900)) + ']}')
        const pieces = splicedPieces(next, received, i, 3_000)
        const sent = pieces.map((piece) => piece.toString('latin1')).join('')
        const base = randomExchange(next, orgs[i % 2] as string)
        const modelBodySent = next() < 0.7
        const exchange: Exchange = {
          ...base,
          request: { ...base.request, body: received.toString('latin1') },
          model_body: modelBodySent ? sent : base.model_body,
          upstream: { replica: 'r1', body: sent, status: 200, headers: [], frames: [], response_body: null },
        }
        added.set(exchange.id, exchange)
        const sentBody = new ByteChunks(pieces)
        const before = [referring.arenaUse().used, copying.arenaUse().used]
        referring.add(exchange, { requestBody: received, sentBody, modelBodySent })
        // The same bytes, none of them a view of the request body's: every one is copied.
        copying.add(exchange, { requestBody: received, sentBody: new ByteChunks(pieces.map((piece) => Buffer.from(piece))), modelBodySent })
        const shared = pieces.filter((piece) => viewOffset(piece, received) >= 0).reduce((sum, piece) => sum + piece.length, 0)
        const grew = [referring.arenaUse().used - before[0]!, copying.arenaUse().used - before[1]!]
        // Nothing evicted in between (a budget that evicts moves `used` by what went): the arena grew by the copies made.
        if (grew[1]! > 0 && referring.stats().evicted === copying.stats().evicted && sent.length >= ARENA_MIN_CHARS) {
          expect(grew[1]! - grew[0]!).toBe(shared * 2 >= sent.length ? shared : 0)
          if (shared * 2 >= sent.length) saved += shared
        }
      }
    }
    add(150)
    expect(referring.stats().evicted).toBeGreaterThan(0)
    expect(saved).toBeGreaterThan(0)
    expectExact(referring, added)
    expectExact(copying, added)
    const other = { org: 'other', unattributed: false }
    const keptOther = referring.list(other, all).data.map((row) => row.id)
    referring.clear(owner)
    for (const id of keptOther) expect(referring.get(other, id)).toStrictEqual(added.get(id))
    add(150)
    expectExact(referring, added)
  })

  it('keeps a body sent as pieces when the record left its texts out, and when the ring reclaims or runs out while the pieces are written', () => {
    for (const seed of [11, 12, 13, 14]) {
      const next = random(seed)
      // Sizes understated (every other seed): the budget evicts nothing, so the ring reclaims as it writes.
      const understate = seed % 2 === 0
      const store = new MemoryStore({ max_bytes: 40_000, max_exchanges: 10_000 }, 1_000 + seed * 37)
      const added = new Map<string, Exchange>()
      for (let i = 0; i < 300; i++) {
        const received = Buffer.from('{"m":"' + 'abc {k} 123 '.repeat(Math.floor(next() * 250)) + '"}')
        const pieces = splicedPieces(next, received, i, 800)
        const sent = pieces.map((piece) => piece.toString('latin1')).join('')
        const modelBodySent = next() < 0.6
        const full = exchangeFixture({
          org: i % 3 === 0 ? 'other' : 'default',
          request: { url: '/v1/chat/completions', headers: [], body: received.toString('latin1') },
          model_body: modelBodySent ? sent : 'mb'.repeat(Math.floor(next() * 200)),
          upstream: { replica: 'r1', body: sent, status: 200, headers: [], frames: [], response_body: 'r'.repeat(Math.floor(next() * 300)) },
        })
        const size_bytes = understate ? 1 : full.size_bytes
        // The record leaves out (as '') texts whose bytes are at hand, as build-exchange.ts does.
        const leaveRequest = next() < 0.5
        const leaveSent = modelBodySent && next() < 0.5
        const lean: Exchange = {
          ...full,
          size_bytes,
          request: { ...full.request, body: leaveRequest ? '' : full.request.body },
          model_body: leaveSent ? '' : full.model_body,
          upstream: { ...full.upstream!, body: leaveSent ? '' : full.upstream!.body },
        }
        added.set(full.id, { ...full, size_bytes })
        store.add(lean, { requestBody: received, sentBody: new ByteChunks(pieces), modelBodySent })
        if (next() < 0.03) store.clear({ org: 'other', unattributed: false })
        if (i % 25 === 0) expectExact(store, added)
      }
      expectExact(store, added)
    }
    // A ring too small for the gateway's own pieces: copying them fails part-way, and the body is kept all the same.
    const small = new MemoryStore({ max_bytes: 5_000, max_exchanges: 100 }, 700)
    for (let round = 0; round < 5; round++) {
      const received = Buffer.from('{"m":"' + 'q'.repeat(2_900 + round) + '"}')
      const pieces = [received.subarray(0, 2_000), Buffer.from(',"a":' + '1'.repeat(800)), received.subarray(100, 2_500), Buffer.from(',"b":' + '2'.repeat(2_600))]
      const sent = pieces.map((piece) => piece.toString('latin1')).join('')
      const full = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [], body: received.toString('latin1') }, model_body: sent, upstream: { replica: 'r1', body: sent, status: 200, headers: [], frames: [], response_body: null } })
      const lean = { ...full, size_bytes: 1, request: { ...full.request, body: '' }, model_body: '', upstream: { ...full.upstream!, body: '' } }
      small.add(lean, { requestBody: received, sentBody: new ByteChunks(pieces), modelBodySent: true })
      expect(small.get(owner, full.id)).toStrictEqual({ ...full, size_bytes: 1 })
    }
  })

  it('keeps a text the record left out from its bytes, as it keeps the text: short or long, in the arena or in the entry', () => {
    const next = random(7)
    // A small arena (with a slab of 4 KB) that cannot hold the largest exchanges' texts, whole or at all.
    for (const limits of [{ max_bytes: 400_000, max_exchanges: 100 }, { max_bytes: 3_000, max_exchanges: 100 }]) {
      const whole = new MemoryStore(limits, 4_096)
      const lean = new MemoryStore(limits, 4_096)
      const added = new Map<string, Exchange>()
      for (let i = 0; i < 40; i++) {
        // ASCII texts of every length around the arena's threshold; the body sent spliced from pieces.
        const ascii = (chars: number) => 'abc {"k":"v"},'.repeat(Math.ceil(chars / 14)).slice(0, chars)
        const received = ascii(Math.floor(next() * 4 * ARENA_MIN_CHARS))
        const pieces = Array.from({ length: 1 + Math.floor(next() * 3) }, () => ascii(Math.floor(next() * 3 * ARENA_MIN_CHARS)))
        const sent = pieces.join('')
        const base = randomExchange(next)
        const exchange: Exchange = {
          ...base,
          request: { ...base.request, body: received },
          model_body: sent,
          upstream: { replica: 'r1', body: sent, status: 200, headers: base.upstream?.headers ?? [], frames: base.upstream?.frames ?? [], response_body: null },
        }
        added.set(exchange.id, exchange)
        const requestBody = Buffer.from(received)
        const sentBody = new ByteChunks(pieces.map((piece) => Buffer.from(piece)))
        whole.add(exchange, { requestBody, sentBody, modelBodySent: true })
        const leftOut: Exchange = { ...exchange, request: { ...exchange.request, body: '' }, model_body: '', upstream: { ...exchange.upstream!, body: '' } }
        lean.add(leftOut, { requestBody: received === '' ? undefined : requestBody, sentBody: sent === '' ? undefined : sentBody, modelBodySent: true })
      }
      // Nothing for the arena at all (headers that stay unpacked, no frames, short texts): the texts left out are still kept.
      const bare = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [['x-folded', 'a\nb']], body: '{"m":1}' }, model_body: '{"s":1}', response: { headers: [], frames: [], body: null } })
      const sentBare = { ...bare, upstream: { replica: 'r1', body: '{"s":1}', status: 200, headers: [], frames: [], response_body: null } }
      added.set(sentBare.id, sentBare)
      whole.add(sentBare, { requestBody: Buffer.from('{"m":1}'), sentBody: Buffer.from('{"s":1}'), modelBodySent: true })
      lean.add({ ...sentBare, request: { ...sentBare.request, body: '' }, model_body: '', upstream: { ...sentBare.upstream, body: '' } }, { requestBody: Buffer.from('{"m":1}'), sentBody: Buffer.from('{"s":1}'), modelBodySent: true })
      expect(lean.stats()).toEqual(whole.stats())
      expect(lean.arenaUse()).toEqual(whole.arenaUse())
      const kept = new Map([...added].filter(([id]) => whole.get(owner, id) !== undefined))
      expectExact(whole, kept)
      expectExact(lean, kept)
    }
  })

  it('copies the bytes of a JSON reply written from pieces and of the model server\'s reply read whole, and reads them back exactly', () => {
    const next = random(6)
    const store = new MemoryStore({ max_bytes: 400_000, max_exchanges: 100 }, 4_096)
    const added = new Map<string, Exchange>()
    for (let i = 0; i < 40; i++) {
      const ascii = i % 3 !== 2
      const piece = () => (ascii ? 'y'.repeat(Math.floor(next() * 6_000)) + `{"r":${i}}` : text(next, Math.floor(next() * 6_000)))
      const pieces = Array.from({ length: 1 + Math.floor(next() * 4) }, piece)
      const written = pieces.reduce((joined, one) => joined + one, '')
      const serverReply = piece()
      const base = randomExchange(next)
      const exchange = {
        ...base,
        response: { headers: [], frames: [], body: written },
        upstream: { replica: 'r1', body: base.upstream?.body ?? 'sent', status: 200, headers: [], frames: [], response_body: serverReply },
      }
      added.set(exchange.id, exchange)
      store.add(exchange, { responseBody: new ByteChunks(pieces.map((one) => Buffer.from(one))), upstreamReply: Buffer.from(serverReply), modelBodySent: false })
    }
    expectExact(store, added)
  })

  it('searches texts kept in the arena, a stream frame by frame', () => {
    const store = new MemoryStore({ max_bytes: 1e6, max_exchanges: 100 }, 4_096)
    const long = 'a haystack '.repeat(300)
    const inBody = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [], body: `${long}NEEDLE ✓ ${long}` } })
    const inFrames = exchangeFixture({
      response: { headers: [], frames: [{ t_ms: 1, raw: `data: ${long}SPLIT` }, { t_ms: 2, raw: `TEXT ${long}😀\n\n` }], body: null },
    })
    store.add(inBody)
    store.add(inFrames)
    const search = (q: string) => store.list(owner, exchangeListQuerySchema.parse({ q })).data.map((row) => row.id)
    expect(search('needle ✓')).toEqual([inBody.id])
    expect(search('text')).toEqual([inFrames.id])
    // Frames are searched one by one, as before: a match across two frames is none.
    expect(search('SPLITTEXT')).toEqual([])
    expect(store.get(owner, inFrames.id)).toStrictEqual(inFrames)
  })
})
