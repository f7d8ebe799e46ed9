import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { collapseSpaces } from './collapse-spaces'
import { findFencedBlocks } from './fences'
import { prettyJsonContainer } from './test-support/json-arbitraries'

describe('collapseSpaces', () => {
  it('collapses the padding of aligned columns, keeping indentation and trailing spaces', () => {
    const table = 'NAME          READY   STATUS    RESTARTS\n  web-1       1/1     Running   0  \n'
    expect(collapseSpaces(table)).toBe('NAME READY STATUS RESTARTS\n  web-1 1/1 Running 0  \n')
  })

  it('keeps tabs, single spaces and line breaks', () => {
    expect(collapseSpaces('a\t\tb  \tc d\r\n  e')).toBe('a\t\tb  \tc d\r\n  e')
    expect(collapseSpaces('a  b\r\nc   d')).toBe('a b\r\nc d')
  })

  it('leaves fenced code blocks alone, closed or not', () => {
    const text = 'x   y\n```py\ndef f():  return  1\n```\nz   w\n~~~\nlast   block'
    expect(collapseSpaces(text)).toBe('x y\n```py\ndef f():  return  1\n```\nz w\n~~~\nlast   block')
  })

  it('leaves a JSON document alone (its strings are data)', () => {
    const json = '{"message": "two  spaces"}'
    expect(collapseSpaces(json)).toBe(json)
    expect(collapseSpaces('"a  b"')).toBe('"a  b"')
  })

  it('returns the same string when there is no double space', () => {
    const text = 'a b c'
    expect(collapseSpaces(text)).toBe(text)
  })

  describe('properties', () => {
    const line = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ' ', '  ', '\t', '|', '-', '\u00a0', 'é', '🌺'), maxLength: 20 })
    const fence = fc.constantFrom('```', '```sh', '~~~', '````')
    const text = fc
      .array(fc.oneof({ weight: 5, arbitrary: line }, { weight: 1, arbitrary: fence }), { maxLength: 12 })
      .chain((lines) => fc.constantFrom('\n', '\r\n').map((nl) => lines.join(nl)))

    it('removes only spaces, and only from inner runs: other characters, indentation and line count stay', () => {
      fc.assert(
        fc.property(text, (input) => {
          const out = collapseSpaces(input)
          expect(out.replace(/ /g, '')).toBe(input.replace(/ /g, ''))
          const lines = (t: string) => t.split('\n')
          expect(lines(out).map((l) => /^[ \t]*/.exec(l)![0])).toEqual(lines(input).map((l) => /^[ \t]*/.exec(l)![0]))
          expect(lines(out).map((l) => /[ \t]*\r?$/.exec(l)![0])).toEqual(lines(input).map((l) => /[ \t]*\r?$/.exec(l)![0]))
        }),
        { numRuns: 1000 },
      )
    })

    it('no inner run of spaces is left outside fences; fences are byte-identical; idempotent', () => {
      fc.assert(
        fc.property(text, (input) => {
          const out = collapseSpaces(input)
          const blocks = (t: string) => findFencedBlocks(t).map((b) => t.slice(b.start, b.end))
          expect(blocks(out)).toEqual(blocks(input))
          let outside = out
          for (const block of blocks(out)) outside = outside.replace(block, '\n')
          expect(outside).not.toMatch(/\S {2,}\S/)
          expect(collapseSpaces(out)).toBe(out)
        }),
        { numRuns: 1000 },
      )
    })

    it('never changes JSON', () => {
      fc.assert(
        fc.property(prettyJsonContainer, (json) => {
          expect(collapseSpaces(json)).toBe(json)
        }),
        { numRuns: 200 },
      )
    })
  })
})
