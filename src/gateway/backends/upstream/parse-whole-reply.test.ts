import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseWholeReply } from './parse-whole-reply'

const UNREAD = new Set(['instructions', 'tools'])
// Long texts with what a string can hold: quotes, backslashes, a name-like piece, line ends, non-ASCII.
const longText = fc.array(fc.constantFrom('word ', '"', '\\', '"instructions":', '\n', 'é', '😀', '}', ']'), { minLength: 1, maxLength: 30 }).map((parts) => parts.join('').repeat(Math.ceil(20_000 / parts.join('').length)))

describe('parseWholeReply', () => {
  it('gives what JSON.parse gives, with the long unread members as null', () => {
    fc.assert(
      fc.property(longText, fc.jsonValue(), fc.boolean(), (instructions, output, withTools) => {
        const reply = { id: 'resp_1', object: 'response', instructions, ...(withTools ? { tools: [{ type: 'function', name: 'f', description: instructions }] } : {}), output: [output], usage: { input_tokens: 1 } }
        // Spaced as some servers write it, too. What JSON.parse makes of the text is the measure (-0 is written 0).
        for (const text of [JSON.stringify(reply), JSON.stringify(reply, null, 2)]) {
          const parsed = JSON.parse(text) as Record<string, unknown>
          expect(parseWholeReply(text, UNREAD)).toEqual({ ...parsed, instructions: null, ...(withTools ? { tools: null } : {}) })
        }
      }),
      { numRuns: 200 },
    )
  })

  it('parses short members, short replies and forms without unread members whole', () => {
    const short = { instructions: 'Be brief.', output: ['x'.repeat(20_000)] }
    expect(parseWholeReply(JSON.stringify(short), UNREAD)).toEqual(short)
    const long = { instructions: 'y'.repeat(20_000), output: [] }
    expect(parseWholeReply(JSON.stringify(long), undefined)).toEqual(long)
    expect(parseWholeReply('{"instructions":"z","output":[]}', UNREAD)).toEqual({ instructions: 'z', output: [] })
  })

  it('throws as JSON.parse does for a reply that is not JSON where it is read', () => {
    const long = 'y'.repeat(20_000)
    for (const text of [`{"instructions":"${long}","output":[}`, `{"instructions":"${long}"`, `{"instructions":"${long}","output":[]} trailing`, `[1,"${long}"`, `{"output":"${long}`]) {
      expect(() => parseWholeReply(text, UNREAD)).toThrow(SyntaxError)
    }
  })

  it('does not look inside a member it leaves unparsed, as the unread events of a stream are not', () => {
    const long = 'y'.repeat(20_000)
    expect(parseWholeReply(`{"instructions":"${long}\\u00zz\n\u0001","output":[]}`, UNREAD)).toEqual({ instructions: null, output: [] })
  })
})
