import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compactJson, endOfJsonString, isJsonDocument } from './json-compact'
import {
  jsonContainerText,
  jsonTokens,
  jsonValueText,
  mutatedJsonText,
  outsideStrings,
  prettyJsonContainer,
} from './test-support/json-arbitraries'

const RUNS = { numRuns: 500 }

function parses(text: string): boolean {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

describe('compactJson', () => {
  it('removes the whitespace outside strings and keeps every token byte for byte', () => {
    const input = '{\n  "id": 12345678901234567890123,\n  "x": 1.0,\n  "y": 1e5,\n  "z": -0,\n  "s": "caf\\u00e9  \\"q\\" \\/",\n  "e": [ ]\n}\n'
    expect(compactJson(input)).toBe('{"id":12345678901234567890123,"x":1.0,"y":1e5,"z":-0,"s":"caf\\u00e9  \\"q\\" \\/","e":[]}')
  })

  it('handles tabs, CRLF and whitespace around the document', () => {
    expect(compactJson('\r\n\t[ 1 ,\r\n\t2 ]\r\n')).toBe('[1,2]')
  })

  it('keeps whitespace inside strings, including after escaped backslashes', () => {
    expect(compactJson('[ "a \\\\", " b " ]')).toBe('["a \\\\"," b "]')
    expect(compactJson('{ "k\\"  ey" : "v" }')).toBe('{"k\\"  ey":"v"}')
  })

  it('returns the very same string when there is nothing to remove', () => {
    const input = '{"a":[1,2,{"b":null}]}'
    expect(compactJson(input)).toBe(input)
  })

  it.each([
    ['prose', 'Hello, world'],
    ['a scalar', ' 42 '],
    ['a string scalar', ' "a  b" '],
    ['a literal', 'true\n'],
    ['tokens that whitespace would join', '[1 2]'],
    ['a split literal', '[tru e]'],
    ['a split number', '[- 1]'],
    ['a trailing comma', '[1, 2, ]'],
    ['a comment', '{ "a": 1 } // note'],
    ['an unterminated string', '{ "a": "b }'],
    ['a raw newline in a string', '{ "a": "line\nbreak" }'],
    ['two documents', '{} {}'],
    ['a non-JSON space (NBSP)', '[1,\u00a02]'],
    ['JSON followed by text', '{"a": 1}\nDone.'],
    ['empty', ''],
  ])('leaves %s unchanged', (_, input) => {
    expect(compactJson(input)).toBe(input)
  })

  it('is cheap to refuse: text not starting with { or [ is not scanned', () => {
    const huge = 'x'.repeat(1_000_000) + ' '
    expect(compactJson(huge)).toBe(huge)
  })

  describe('properties', () => {
    const checkLossless = (input: string) => {
      const out = compactJson(input)
      expect(JSON.parse(out)).toEqual(JSON.parse(input))
      // Every token — strings, numbers (big ones too), literals — byte-identical, in order.
      expect(jsonTokens(out)).toEqual(jsonTokens(input))
      expect(outsideStrings(out)).not.toMatch(/[ \t\n\r]/)
      expect(compactJson(out)).toBe(out)
    }

    it('generated JSON texts with random whitespace: same value, same tokens, no whitespace outside strings, idempotent', () => {
      fc.assert(fc.property(jsonContainerText, checkLossless), RUNS)
    })

    it('JSON.stringify pretty-printed values', () => {
      fc.assert(fc.property(prettyJsonContainer, checkLossless), RUNS)
    })

    it('number literals stay byte-identical', () => {
      fc.assert(
        fc.property(jsonContainerText, (input) => {
          const numbers = (text: string) => jsonTokens(text).filter((token) => /^-?\d/.test(token))
          expect(numbers(compactJson(input))).toEqual(numbers(input))
        }),
        RUNS,
      )
    })

    it('only whitespace outside strings is ever removed: the non-whitespace remainder is unchanged', () => {
      fc.assert(
        fc.property(fc.oneof(jsonContainerText, mutatedJsonText, fc.string()), (input) => {
          const out = compactJson(input)
          expect(outsideStrings(out).replace(/[ \t\n\r]/g, '')).toBe(outsideStrings(input).replace(/[ \t\n\r]/g, ''))
        }),
        RUNS,
      )
    })

    it('anything JSON.parse refuses is returned unchanged; a change implies equal parsed values', () => {
      fc.assert(
        fc.property(
          fc.oneof(
            mutatedJsonText,
            fc.string(),
            fc.string({ unit: 'binary' }).map((s) => '[' + s),
            fc.string({ unit: fc.constantFrom(...' \t\n[]{},:"\\1ae-') }),
          ),
          (input) => {
            const out = compactJson(input)
            if (!parses(input)) expect(out).toBe(input)
            if (out !== input) expect(JSON.parse(out)).toEqual(JSON.parse(input))
          },
        ),
        { numRuns: 2000 },
      )
    })

    it('scalars are never changed', () => {
      fc.assert(
        fc.property(jsonValueText.filter((t) => !t.startsWith('{') && !t.startsWith('[')), fc.constantFrom('', ' ', '\n'), (value, ws) => {
          expect(compactJson(ws + value + ws)).toBe(ws + value + ws)
        }),
        RUNS,
      )
    })
  })
})

describe('endOfJsonString', () => {
  it('finds the closing quote, skipping escaped ones', () => {
    expect(endOfJsonString('"ab"', 1)).toBe(4)
    expect(endOfJsonString('"a\\"b"x', 1)).toBe(6)
    expect(endOfJsonString('"a\\\\"x', 1)).toBe(5)
    expect(endOfJsonString('"a\\"', 1)).toBe(-1)
  })
})

describe('isJsonDocument', () => {
  it('is true for an object, array or string that parses', () => {
    expect(isJsonDocument(' {"a": "b  c"} ')).toBe(true)
    expect(isJsonDocument('"a  b"')).toBe(true)
    expect(isJsonDocument('[1]')).toBe(true)
    expect(isJsonDocument('42')).toBe(false)
    expect(isJsonDocument('{"a": }')).toBe(false)
    expect(isJsonDocument('NAME  READY')).toBe(false)
  })
})
