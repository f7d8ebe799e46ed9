import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { LineEnds } from './line-ends'

/** Every LF and CR of `text` at or after `from`, by a scan of each character. */
function scanned(text: string, from: number): number[] {
  const ends: number[] = []
  for (let i = from; i < text.length; i++) if (text[i] === '\n' || text[i] === '\r') ends.push(i)
  return ends
}

describe('LineEnds', () => {
  it('finds the same line ends as a scan of each character, from any rising starts', () => {
    const text = fc.array(fc.constantFrom('a', 'é', '😀', '\n', '\r', '\r\n', 'data: x'), { maxLength: 40 }).map((parts) => parts.join(''))
    fc.assert(
      fc.property(text, fc.array(fc.nat({ max: 3 }), { maxLength: 20 }), (t, skips) => {
        const ends = new LineEnds(t)
        let from = 0
        for (const skip of skips) {
          from += skip
          expect(ends.next(from)).toBe(scanned(t, from)[0] ?? -1)
        }
        const start = from
        const rest: number[] = []
        for (let end = ends.next(from); end !== -1; end = ends.next(from)) {
          rest.push(end)
          from = end + 1
        }
        expect(rest).toEqual(scanned(t, start))
      }),
    )
  })
})
