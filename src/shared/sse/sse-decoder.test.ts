import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { MAX_SSE_EVENT_CHARS, MAX_SSE_LINE_CHARS, SseDecoder, SseLimitError, type SseEvent } from './sse-decoder'

const decodeAll = (parts: Array<Uint8Array | string>): SseEvent[] => {
  const decoder = new SseDecoder()
  return [...parts.flatMap((part) => decoder.push(part)), ...decoder.end()]
}

describe('SseDecoder', () => {
  it('reads data events, comments, multi-line data and event names', () => {
    const events = decodeAll(['data: {"a":1}\n\n: ping\n\nevent: x\ndata: line1\ndata: line2\n\ndata: [DONE]\n\n'])
    expect(events).toEqual([
      { kind: 'data', data: '{"a":1}' },
      { kind: 'comment', text: 'ping' },
      { kind: 'data', data: 'line1\nline2', event: 'x' },
      { kind: 'data', data: '[DONE]' },
    ])
  })

  it('accepts CRLF and CR line ends and a missing space after the colon', () => {
    expect(decodeAll(['data:x\r\n\r\ndata: y\r\rdata: z\n\n'])).toEqual([
      { kind: 'data', data: 'x' },
      { kind: 'data', data: 'y' },
      { kind: 'data', data: 'z' },
    ])
  })

  it('drops an event whose closing blank line never came', () => {
    expect(decodeAll(['data: complete\n\ndata: cut off'])).toEqual([{ kind: 'data', data: 'complete' }])
  })

  it('gives the same events however the bytes are split, through multi-byte characters', () => {
    const stream =
      'data: {"content":"Grüße 你好 🌍"}\r\n\r\n: ping\n\ndata: {"content":"a\\nb"}\n\ndata: [DONE]\n\n'
    const bytes = new TextEncoder().encode(stream)
    const whole = decodeAll([bytes])
    expect(whole).toHaveLength(4)
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), (cuts) => {
        const points = [0, ...cuts.sort((a, b) => a - b), bytes.length]
        const parts = points.slice(1).map((end, i) => bytes.slice(points[i], end))
        expect(decodeAll(parts)).toEqual(whole)
      }),
      { numRuns: 300 },
    )
  })

  it('holds a line without a newline up to the cap, and fails at the first push past it', () => {
    // A 10 MB line in 1 KB pushes: the decoder never holds more than the cap and stops at the
    // push that crosses it, not after reading all 10 MB.
    const decoder = new SseDecoder()
    const piece = new TextEncoder().encode('x'.repeat(1024))
    const pushes = (10 * 1024 * 1024) / piece.length
    let failedAt: number | undefined
    for (let i = 0; i < pushes; i++) {
      try {
        decoder.push(piece)
      } catch (error) {
        expect(error).toBeInstanceOf(SseLimitError)
        failedAt = i
        break
      }
      expect(decoder.bufferedChars).toBeLessThanOrEqual(MAX_SSE_LINE_CHARS)
    }
    expect(failedAt).toBe(MAX_SSE_LINE_CHARS / piece.length)
    // Broken for good: a later push fails too, however small.
    expect(() => decoder.push('\n\n')).toThrow(SseLimitError)
  })

  it('reads a line just under the cap, fed in 100-byte pushes', () => {
    // 10,000 pushes into one line: rescanning what it holds on each push would be ~5·10⁹ steps.
    const decoder = new SseDecoder()
    const body = 'y'.repeat(MAX_SSE_LINE_CHARS - 'data: '.length)
    const stream = `data: ${body}\n\n`
    const events: SseEvent[] = []
    for (let at = 0; at < stream.length; at += 100) events.push(...decoder.push(stream.slice(at, at + 100)))
    expect(events).toEqual([{ kind: 'data', data: body }])
    expect(decoder.bufferedChars).toBe(0)
  })

  it('caps one event: many data lines together may not pass it', () => {
    const decoder = new SseDecoder()
    const line = `data: ${'z'.repeat(1023)}\n`
    expect(() => {
      for (let i = 0; i <= MAX_SSE_EVENT_CHARS / 1024; i++) decoder.push(line)
    }).toThrow(/event-stream event is longer than 1,048,576/)
  })

  it('decodes multi-byte characters split at every offset, across pushes and a CRLF', () => {
    const stream = 'data: é你🌍\r\n\r\ndata: 👩‍👩‍👧 Grüße\n\n'
    const bytes = new TextEncoder().encode(stream)
    const whole = decodeAll([bytes])
    expect(whole).toEqual([
      { kind: 'data', data: 'é你🌍' },
      { kind: 'data', data: '👩‍👩‍👧 Grüße' },
    ])
    for (let a = 1; a < bytes.length; a++) {
      for (let b = a + 1; b < bytes.length; b += 3) {
        expect(decodeAll([bytes.slice(0, a), bytes.slice(a, b), bytes.slice(b)])).toEqual(whole)
      }
    }
    // One byte at a time.
    expect(decodeAll([...bytes].map((byte) => Uint8Array.of(byte)))).toEqual(whole)
  })
})
