import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { SseFrameSplitter } from './sse-frame-splitter'

const splitAll = (parts: Array<Uint8Array | string>): { frames: string[]; partial: string } => {
  const splitter = new SseFrameSplitter()
  const frames = parts.flatMap((part) => splitter.push(part))
  const end = splitter.end()
  return { frames: [...frames, ...end.frames], partial: end.partial }
}

describe('SseFrameSplitter', () => {
  it('cuts frames at blank lines and keeps their exact text', () => {
    expect(splitAll(['data: {"a":1}\n\n: ping\n\ndata: l1\ndata: l2\n\ndata: [DONE]\n\n'])).toEqual({
      frames: ['data: {"a":1}\n\n', ': ping\n\n', 'data: l1\ndata: l2\n\n', 'data: [DONE]\n\n'],
      partial: '',
    })
  })

  it('keeps CRLF and CR line ends as sent', () => {
    expect(splitAll(['data: x\r\n\r\ndata: y\r\rdata: z\n\n']).frames).toEqual([
      'data: x\r\n\r\n',
      'data: y\r\r',
      'data: z\n\n',
    ])
  })

  it('waits on a trailing CR that may start a CRLF', () => {
    const splitter = new SseFrameSplitter()
    expect(splitter.push('data: x\r\n\r')).toEqual([])
    expect(splitter.push('\ndata: y\n\n')).toEqual(['data: x\r\n\r\n', 'data: y\n\n'])
  })

  it('returns an unterminated last frame as partial', () => {
    expect(splitAll(['data: complete\n\ndata: cut off'])).toEqual({ frames: ['data: complete\n\n'], partial: 'data: cut off' })
  })

  it('attaches leading blank lines to the next frame', () => {
    expect(splitAll(['\n\ndata: a\n\n']).frames).toEqual(['\n\ndata: a\n\n'])
  })

  it('gives the same frames however the bytes are split, through multi-byte characters', () => {
    const stream = 'data: {"c":"Grüße 你好 🌍"}\r\n\r\n: ping\n\ndata: {"c":"a"}\n\ndata: [DONE]\n\n'
    const bytes = new TextEncoder().encode(stream)
    const whole = splitAll([bytes])
    expect(whole.frames).toHaveLength(4)
    expect(whole.frames.join('')).toBe(stream)
    fc.assert(
      fc.property(fc.uniqueArray(fc.integer({ min: 1, max: bytes.length - 1 }), { maxLength: 12 }), (cuts) => {
        const sorted = [...cuts].sort((a, b) => a - b)
        const parts: Uint8Array[] = []
        let start = 0
        for (const cut of sorted) {
          parts.push(bytes.slice(start, cut))
          start = cut
        }
        parts.push(bytes.slice(start))
        expect(splitAll(parts)).toEqual(whole)
      }),
    )
  })
})
