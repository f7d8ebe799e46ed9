import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { FrameLog } from './frame-log'
import { exchangeFixture } from './test-support/exchange-fixture'
import { cutToBytes, decodedSize, exchangeSize, fitExchange } from './truncate-exchange'

describe('fitExchange', () => {
  it('leaves an exchange within the limit whole and unmarked', () => {
    const exchange = exchangeFixture()
    expect(fitExchange(exchange, exchange.size_bytes, { frames: 0, bytes: 0 })).toEqual(exchange)
  })

  it('cuts a huge exchange to the limit and says how much there was', () => {
    const frames = Array.from({ length: 2_000 }, (_, i) => ({ t_ms: i, raw: `data: {"n":${i}}\n\n` }))
    const huge = exchangeFixture({
      request: { url: '/v1/chat/completions', headers: [], body: 'é'.repeat(200_000) },
      response: { headers: [], frames, body: null },
    })
    const fitted = fitExchange(huge, 64 * 1024, { frames: 0, bytes: 0 })
    expect(fitted.size_bytes).toBeLessThanOrEqual(64 * 1024)
    expect(fitted.size_bytes).toBe(exchangeSize(fitted))
    expect(fitted.truncated).toEqual({ original_bytes: huge.size_bytes, kept_bytes: fitted.size_bytes, dropped_frames: 2_000 - fitted.response.frames.length })
    // The body is a prefix of what came, never a broken character; the stream keeps its start and end.
    expect(huge.request.body.startsWith(fitted.request.body)).toBe(true)
    expect(fitted.response.frames[0]).toEqual(frames[0])
    expect(fitted.response.frames.at(-1)).toEqual(frames.at(-1))
    // Metadata is never cut.
    expect(fitted).toMatchObject({ id: huge.id, outcome: huge.outcome, status: huge.status })
  })

  it('marks an exchange whose frames the recorder already dropped, even when the rest fits', () => {
    const exchange = exchangeFixture()
    expect(fitExchange(exchange, 1e9, { frames: 3, bytes: 100 }).truncated).toEqual({
      original_bytes: exchange.size_bytes + 100,
      kept_bytes: exchange.size_bytes,
      dropped_frames: 3,
    })
  })
})

describe('cutToBytes', () => {
  it('never splits a multi-byte character', () => {
    expect(cutToBytes('aé', 2)).toBe('a')
    expect(cutToBytes('aé', 3)).toBe('aé')
    expect(cutToBytes('😀😀', 5)).toBe('😀')
  })

  it("cuts as a cut of the whole text's bytes would, from a prefix of the text", () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 60 }), fc.integer({ min: 0, max: 80 }), (text, maxBytes) => {
        const whole = Buffer.from(text, 'utf8')
        const cut = cutToBytes(text, maxBytes)
        expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(maxBytes)
        expect(text.startsWith(cut)).toBe(true)
        // The longest such prefix: the next character would not fit.
        if (cut.length < text.length) expect(Buffer.byteLength(text.slice(0, cut.length + (text.codePointAt(cut.length)! > 0xffff ? 2 : 1)))).toBeGreaterThan(maxBytes)
        expect(whole.subarray(0, maxBytes).toString('utf8').startsWith(cut)).toBe(true)
      }),
      { numRuns: 500 },
    )
  })
})

describe('FrameLog', () => {
  it('keeps the first and the latest frames within its budget, and counts what it dropped', () => {
    const log = new FrameLog(40)
    for (let i = 0; i < 100; i++) log.push(`f${String(i).padStart(2, '0')}`, i)
    const kept = log.frames().map((frame) => frame.raw)
    expect(kept.slice(0, 5)).toEqual(['f00', 'f01', 'f02', 'f03', 'f04'])
    expect(kept.at(-1)).toBe('f99')
    expect(kept.join('').length).toBeLessThanOrEqual(40)
    expect(log.dropped).toBe(100 - kept.length)
    expect(log.droppedSize).toBe(3 * log.dropped)
  })

  it('keeps a single frame larger than its budget (the exchange is cut when built)', () => {
    const log = new FrameLog(10)
    log.push('x'.repeat(50), 0)
    expect(log.frames()).toHaveLength(1)
    expect(log.dropped).toBe(0)
  })
})

describe('decodedSize', () => {
  it('is the UTF-8 size of the decoded text whenever it answers, and answers for valid UTF-8', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (bytes) => {
        const raw = Buffer.from(bytes)
        const size = decodedSize(raw)
        if (size !== undefined) expect(size).toBe(Buffer.byteLength(raw.toString('utf8')))
      }),
    )
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 64 }), (text) => {
        expect(decodedSize(Buffer.from(text))).toBe(Buffer.byteLength(text))
      }),
    )
    // A byte-order mark is kept by the decoder, so it counts; an invalid byte decodes to U+FFFD, three bytes.
    expect(decodedSize(Buffer.from([0xef, 0xbb, 0xbf, 0x61]))).toBe(4)
    expect(decodedSize(Buffer.from([0x61, 0xff]))).toBeUndefined()
  })
})

describe('fitExchange with sizes already known', () => {
  it('comes to the size measured from the texts, whole or cut', () => {
    const body = 'é'.repeat(50_000)
    const exchange = exchangeFixture({ request: { url: '/v1/chat/completions', headers: [], body }, model_body: body })
    const bytes = Buffer.byteLength(body)
    const known = { requestBody: bytes, modelBody: bytes }
    expect(fitExchange(exchange, 1e9, { frames: 0, bytes: 0 }, known).size_bytes).toBe(exchangeSize(exchange))
    const cut = fitExchange(exchange, 64 * 1024, { frames: 0, bytes: 0 }, known)
    expect(cut.size_bytes).toBe(exchangeSize(cut))
    expect(cut.truncated?.original_bytes).toBe(exchangeSize(exchange))
  })
})
