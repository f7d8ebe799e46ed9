import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { bytesHoldSecret, redactExchange, requestBodyHoldsSecret, SHORTEST_MARKED_PIECE } from './redact-credentials'
import { ByteChunks } from '../http/json-chunks'
import { exchangeFixture } from './test-support/exchange-fixture'

const SECRET = 'sk-proj-abcdefghijklmnop1234'

describe('bytesHoldSecret', () => {
  it('finds a secret in UTF-8 bytes exactly when their text holds it', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 })
    fc.assert(
      fc.property(text, text, fc.string({ unit: 'grapheme', minLength: 8, maxLength: 12 }), fc.boolean(), (before, after, secret, inside) => {
        const body = inside ? before + secret + after : before + after
        expect(bytesHoldSecret(Buffer.from(body), [secret])).toBe(body.includes(secret))
      }),
    )
    // Secrets too short to look for are not looked for, in bytes as in texts.
    expect(bytesHoldSecret(Buffer.from('a short one'), ['short'])).toBe(false)
  })

  it('finds it in bytes sent in pieces, wherever the pieces are cut, across as many pieces as it spans', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 40 })
    fc.assert(
      fc.property(text, text, fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), (before, after, inside, cuts) => {
        const bytes = Buffer.from(inside ? before + SECRET + after : before + after)
        const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
        const pieces = [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length))
        expect(bytesHoldSecret(new ByteChunks(pieces), [SECRET, 'another-secret-123'])).toBe(inside)
      }),
    )
  })

  it('finds it when the pieces are searched a few bytes at a time, wherever a window ends', () => {
    const text = fc.string({ unit: 'grapheme', maxLength: 60 })
    fc.assert(
      fc.property(text, text, fc.boolean(), fc.array(fc.nat(), { maxLength: 12 }), fc.integer({ min: 1, max: 48 }), (before, after, inside, cuts, window) => {
        const bytes = Buffer.from(inside ? before + SECRET + after : before + after)
        const at = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b)
        const pieces = [0, ...at].map((start, i) => bytes.subarray(start, at[i] ?? bytes.length))
        expect(bytesHoldSecret(new ByteChunks(pieces), ['a-short-secret', SECRET], { windowBytes: window })).toBe(inside || bytes.includes('a-short-secret'))
      }),
    )
    // A body larger than the window the last search used: the window grows, and old bytes are not searched.
    const small = new ByteChunks([Buffer.from(`x${SECRET.slice(0, 10)}`), Buffer.from('y')])
    expect(bytesHoldSecret(new ByteChunks([Buffer.from(`${'z'.repeat(100)}${SECRET}`), Buffer.from('!')]), [SECRET])).toBe(true)
    expect(bytesHoldSecret(small, [SECRET])).toBe(false)
  })
  it('searches the pieces spliced from a clean body only at their edges, and still finds every secret the bytes hold', () => {
    // Fragments of the secret, in the client's body and in the gateway's own pieces, and pieces of
    // the client's body cut where its parts meet, so that seams between pieces often complete one.
    const fragment = fc.constantFrom(5, 14, 27).chain((cut) => fc.constantFrom(SECRET.slice(0, cut), SECRET.slice(cut)))
    const filler = fc.string({ unit: fc.constantFrom('a', 'b', '"', ',', 'é'), maxLength: 70 })
    const parts = fc.array(fc.oneof(filler, fragment), { maxLength: 16 })
    const piece = fc.oneof(fc.record({ own: parts.map((own) => own.join('')) }), fc.record({ from: fc.nat(), to: fc.nat() }))
    fc.assert(
      fc.property(parts, fc.array(piece, { maxLength: 8 }), fc.integer({ min: 8, max: 400 }), (clientParts, layout, window) => {
        const client = Buffer.from(clientParts.join(''))
        fc.pre(!client.includes(SECRET))
        // Where the client's parts begin and end, in bytes.
        const edges = clientParts.reduce((at, part) => [...at, at.at(-1)! + Buffer.byteLength(part)], [0])
        const pieces = layout.map((p) => {
          if ('own' in p) return Buffer.from(p.own)
          const [start, end] = [edges[p.from % edges.length]!, edges[p.to % edges.length]!].sort((x, y) => x - y)
          return client.subarray(start, end)
        })
        const holds = Buffer.concat(pieces).includes(SECRET)
        expect(bytesHoldSecret(new ByteChunks(pieces), [SECRET], { clean: client, windowBytes: window })).toBe(holds)
      }),
      { numRuns: 3000 },
    )
  })
})

describe('bytesHoldSecret, long pieces sent again', () => {
  it('searches a long piece found clean before only at its edges, for the same secrets, and still finds every secret the bytes hold', () => {
    const OTHER = 'mk_live_0123456789abcdefghij'
    // Long pieces (marked once searched) with fragments of either secret at their edges, and short
    // pieces between them: bodies made of them, in turn, as a translated conversation's are.
    const fragment = fc.constantFrom(SECRET, OTHER).chain((secret) => fc.constantFrom(secret.slice(0, 9), secret.slice(9)))
    const long = fc.tuple(fragment, fragment, fc.boolean()).map(([head, tail, inside]) => Buffer.from(`${head}${'x'.repeat(SHORTEST_MARKED_PIECE)}${inside ? OTHER : ''}${tail}`))
    const short = fc.oneof(fragment, fc.constantFrom(',', '"')).map((text) => Buffer.from(text))
    fc.assert(
      fc.property(fc.array(fc.oneof(long, short), { minLength: 1, maxLength: 8 }), fc.array(fc.tuple(fc.array(fc.nat(), { maxLength: 8 }), fc.subarray([SECRET, OTHER], { minLength: 1 })), { maxLength: 6 }), (pool, bodies) => {
        for (const [picks, secrets] of bodies) {
          const pieces = picks.map((pick) => pool[pick % pool.length]!)
          const joined = Buffer.concat(pieces)
          expect(bytesHoldSecret(new ByteChunks(pieces), secrets, { windowBytes: 3000 })).toBe(secrets.some((secret) => joined.includes(secret)))
        }
      }),
      { numRuns: 1000 },
    )
  })

  it('does not search a long piece found clean again for the same secrets, and does for others', () => {
    const OTHER = 'mk_live_0123456789abcdefghij'
    const piece = Buffer.from('y'.repeat(2 * SHORTEST_MARKED_PIECE))
    const body = () => new ByteChunks([Buffer.from('{"a":'), piece, Buffer.from('}')])
    expect(bytesHoldSecret(body(), [SECRET])).toBe(false)
    // Written to after it was found clean (a piece sent never is): what shows it is not searched again.
    piece.write(SECRET, SHORTEST_MARKED_PIECE)
    expect(bytesHoldSecret(body(), [SECRET])).toBe(false)
    expect(bytesHoldSecret(body(), [SECRET, OTHER])).toBe(true)
  })
})

describe('requestBodyHoldsSecret', () => {
  it('finds every secret in a conversation whose bodies go on from the last, wherever the secret is', () => {
    const OTHER = 'mk_live_0123456789abcdefghij'
    // Each turn: the last body's bytes, then new ones that may hold a secret, whole or cut where
    // the shared bytes end; and the client's credentials, now and then another set.
    const fragment = fc.constantFrom(SECRET, OTHER).chain((secret) => fc.constantFrom(secret, secret.slice(0, 7), secret.slice(7)))
    const added = fc.array(fc.oneof(fc.string({ unit: fc.constantFrom('a', '"', ','), maxLength: 30 }), fragment), { maxLength: 4 }).map((parts) => parts.join(''))
    const turn = fc.record({ added, secrets: fc.constantFrom([SECRET], [SECRET, OTHER], [OTHER]), cut: fc.nat(3) })
    fc.assert(
      fc.property(fc.array(turn, { minLength: 1, maxLength: 10 }), (turns) => {
        let last: { raw: Buffer; kept: object } | undefined
        for (const { added, secrets, cut } of turns) {
          // Now and then the body goes on from fewer of the last one's bytes (an edited last turn).
          const shared = last === undefined ? Buffer.alloc(0) : last.raw.subarray(0, Math.max(0, last.raw.length - cut))
          const raw = Buffer.concat([shared, Buffer.from(added)])
          const kept = {}
          const continued = last === undefined ? undefined : { sharedWith: last.kept, sharedBytes: shared.length, kept }
          expect(requestBodyHoldsSecret(raw, secrets, continued)).toBe(secrets.some((secret) => raw.includes(secret)))
          last = { raw, kept }
        }
      }),
      { numRuns: 3000 },
    )
  })

  it('searches only past the bytes shared with a body found clean for the same secrets', () => {
    const first = {}
    expect(requestBodyHoldsSecret(Buffer.from('{"messages":[1,2'), [SECRET], { sharedWith: {}, sharedBytes: 0, kept: first })).toBe(false)
    // Bytes said to be shared with that body, which here hold the secret (a body never would):
    // not searched for the same secrets, searched for others.
    const raw = Buffer.from(`{"messages":[1,2,"${SECRET}",3]}`)
    const shares = { sharedWith: first, sharedBytes: raw.length - 3, kept: {} }
    expect(requestBodyHoldsSecret(raw, [SECRET], shares)).toBe(false)
    expect(requestBodyHoldsSecret(raw, [SECRET, 'another-secret-123'], shares)).toBe(true)
    // A secret that crosses the end of the shared bytes is found.
    const crossing = Buffer.from(`{"messages":[1,2,"${SECRET}"]}`)
    expect(requestBodyHoldsSecret(crossing, [SECRET], { sharedWith: first, sharedBytes: crossing.indexOf(SECRET) + 5, kept: {} })).toBe(true)
  })
})

describe('redactExchange', () => {
  const withModelBody = (modelBody: string) => {
    const base = exchangeFixture({ model_body: modelBody })
    return exchangeFixture({ model_body: modelBody, upstream: { replica: 'r', body: modelBody, status: 200, headers: [], frames: [], response_body: '{"ok":true}' }, request: base.request })
  }

  it('returns the very exchange when no text holds a secret', () => {
    const exchange = withModelBody('{"messages":[]}')
    expect(redactExchange(exchange, [SECRET])).toBe(exchange)
  })

  it('replaces a secret in the body sent, which is the model body, once for both', () => {
    const redacted = redactExchange(withModelBody(`{"user":"${SECRET}"}`), [SECRET])
    expect(redacted.model_body).not.toContain(SECRET)
    expect(redacted.model_body).toContain('…1234 (28 characters)')
    expect(redacted.upstream?.body).toBe(redacted.model_body)
  })

  it('leaves the body sent unsearched when the recorder searched its bytes already', () => {
    // The caller vouches that it holds none; the body as received is still searched.
    const exchange = withModelBody(`{"user":"${SECRET}"}`)
    const received = exchangeFixture({ ...exchange, request: { ...exchange.request, body: `{"user":"${SECRET}"}` } })
    const redacted = redactExchange(received, [SECRET], { modelBody: true })
    expect(redacted.model_body).toBe(received.model_body)
    expect(redacted.request.body).not.toContain(SECRET)
  })
})
