import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SseDecoder, type SseEvent } from './sse-decoder'

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
})
