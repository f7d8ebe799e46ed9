import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { parseWholeReply, withoutLongMembers } from './parse-whole-reply'

const UNREAD = new Set(['instructions', 'tools'])
/** A reply as read: its bytes, and its text. */
const reply = (text: string) => ({ bytes: Buffer.from(text), text })
// Long texts with what a string can hold: quotes, backslashes, a name-like piece, line ends, non-ASCII.
const longText = fc.array(fc.constantFrom('word ', '"', '\\', '"instructions":', '\n', 'é', '😀', '}', ']'), { minLength: 1, maxLength: 30 }).map((parts) => parts.join('').repeat(Math.ceil(20_000 / parts.join('').length)))

describe('parseWholeReply', () => {
  it('gives what JSON.parse gives, with the long unread members as null', () => {
    fc.assert(
      fc.property(longText, fc.jsonValue(), fc.boolean(), (instructions, output, withTools) => {
        const body = { id: 'resp_1', object: 'response', instructions, ...(withTools ? { tools: [{ type: 'function', name: 'f', description: instructions }] } : {}), output: [output], usage: { input_tokens: 1 } }
        // Spaced as some servers write it, too. What JSON.parse makes of the text is the measure (-0 is written 0).
        for (const text of [JSON.stringify(body), JSON.stringify(body, null, 2)]) {
          const parsed = JSON.parse(text) as Record<string, unknown>
          const expected = { ...parsed, instructions: null, ...(withTools ? { tools: null } : {}) }
          expect(parseWholeReply(reply(text), UNREAD)).toEqual(expected)
          // Read from the bytes, unless the output names a member so too (then the text is scanned).
          const fromBytes = withoutLongMembers(Buffer.from(text), UNREAD)
          if (!/"(instructions|tools)"/.test(JSON.stringify(output))) expect(fromBytes).toEqual(expected)
          else if (fromBytes !== undefined) expect(fromBytes).toEqual(expected)
        }
      }),
      { numRuns: 200 },
    )
  })

  it('parses short members, short replies and forms without unread members whole', () => {
    const short = { instructions: 'Be brief.', output: ['x'.repeat(20_000)] }
    expect(parseWholeReply(reply(JSON.stringify(short)), UNREAD)).toEqual(short)
    const long = { instructions: 'y'.repeat(20_000), output: [] }
    expect(parseWholeReply(reply(JSON.stringify(long)), undefined)).toEqual(long)
    expect(parseWholeReply(reply('{"instructions":"z","output":[]}'), UNREAD)).toEqual({ instructions: 'z', output: [] })
  })

  it('throws as JSON.parse does for a reply that is not JSON where it is read', () => {
    const long = 'y'.repeat(20_000)
    for (const text of [`{"instructions":"${long}","output":[}`, `{"instructions":"${long}"`, `{"instructions":"${long}","output":[]} trailing`, `[1,"${long}"`, `{"output":"${long}`]) {
      expect(() => parseWholeReply(reply(text), UNREAD)).toThrow(SyntaxError)
    }
  })

  it('does not look inside a member it leaves unparsed, as the unread events of a stream are not', () => {
    const long = 'y'.repeat(20_000)
    expect(parseWholeReply(reply(`{"instructions":"${long}\\u00zz\n\u0001","output":[]}`), UNREAD)).toEqual({ instructions: null, output: [] })
  })

  it('reads from the bytes only members of the reply itself, and leaves the rest to the text', () => {
    const long = 'y'.repeat(20_000)
    const cases: Array<[string, unknown]> = [
      // Named inside an object only: the reply has no such member of its own.
      [`{"output":[{"instructions":"${long}"}]}`, { output: [{ instructions: long }] }],
      // Named twice: the reply's own and one inside.
      [`{"instructions":"${long}","output":[{"instructions":"x"}]}`, { instructions: null, output: [{ instructions: 'x' }] }],
      // Named as a value first.
      [`{"output":["instructions"],"instructions":"${long}"}`, { output: ['instructions'], instructions: null }],
      // No instructions (null), long tools.
      [`{"instructions":null,"tools":[{"description":"${long}","nested":{"a":["]"]}}],"output":[]}`, { instructions: null, tools: null, output: [] }],
    ]
    for (const [text, expected] of cases) {
      expect(parseWholeReply(reply(text), UNREAD)).toEqual(expected)
      const fromBytes = withoutLongMembers(Buffer.from(text), UNREAD)
      if (fromBytes !== undefined) expect(fromBytes).toEqual(expected)
    }
    // The first three are not read from the bytes; the last is.
    expect(cases.slice(0, 3).map(([text]) => withoutLongMembers(Buffer.from(text), UNREAD))).toEqual([undefined, undefined, undefined])
    expect(withoutLongMembers(Buffer.from(cases[3]![0]), UNREAD)).toEqual(cases[3]![1])
  })
})
