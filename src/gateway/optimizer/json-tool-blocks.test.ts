import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { compactJson } from './json-compact'
import { compactJsonBlocks } from './json-tool-blocks'
import { jsonContainerText, jsonTokens, mutatedJsonText, prettyJsonContainer } from './test-support/json-arbitraries'

describe('compactJsonBlocks', () => {
  it('compacts the body of a json-labelled block and touches nothing else', () => {
    const text = 'Found 2 issues:\n\n```json\n[\n  { "id": 1, "title": "a  b" },\n  { "id": 2 }\n]\n```\n\nNext page:  2'
    expect(compactJsonBlocks(text)).toEqual({
      text: 'Found 2 issues:\n\n```json\n[{"id":1,"title":"a  b"},{"id":2}]\n```\n\nNext page:  2',
      changed: 1,
    })
  })

  it('accepts the label in any case and with more info; keeps CRLF and the fence lines', () => {
    expect(compactJsonBlocks('~~~JSON file=a.json\r\n{ "a" : 1 }\r\n~~~~\r\n').text).toBe('~~~JSON file=a.json\r\n{"a":1}\r\n~~~~\r\n')
  })

  it('counts each changed block', () => {
    const block = '```json\n{ "a": 1 }\n```\n'
    expect(compactJsonBlocks(block + 'x\n' + block + '```json\n{"b":2}\n```\n').changed).toBe(2)
  })

  it.each([
    ['an unlabelled block', '```\n{ "a": 1 }\n```'],
    ['another language', '```js\n{ "a": 1 }\n```'],
    ['a label that only starts with json', '```jsonc\n{ "a": 1 }\n```'],
    ['invalid JSON', '```json\n{ "a": 1, }\n```'],
    ['a JSON scalar', '```json\n "a  b" \n```'],
    ['an unclosed block', '```json\n{ "a": 1 }\n'],
    ['an already compact body', '```json\n{"a":1}\n```'],
    ['an empty body', '```json\n```'],
    ['no fences', '{ "a": 1 }'],
  ])('leaves %s unchanged', (_, text) => {
    expect(compactJsonBlocks(text)).toEqual({ text, changed: 0 })
  })

  describe('properties', () => {
    const prose = fc.string({ unit: fc.constantFrom('a', ' ', '  ', '\n', '{', '"', '`', '~', ':'), maxLength: 30 })
    const json = fc.oneof(jsonContainerText, prettyJsonContainer, mutatedJsonText)

    it('each json block body becomes compactJson(body); text outside blocks is unchanged; idempotent', () => {
      fc.assert(
        fc.property(
          fc.array(fc.tuple(prose.map((p) => p.replace(/[`~]{3,}/g, '')), json), { minLength: 1, maxLength: 4 }),
          fc.constantFrom('\n', '\r\n'),
          (parts, nl) => {
            const build = (body: (json: string) => string) =>
              parts.map(([p, j]) => p + nl + '```json' + nl + body(j) + nl + '```' + nl).join('')
            const input = build((j) => j)
            // A changed body keeps the line break before its closing fence: CRLF if the body's last
            // line ended in CR, else LF.
            const bodies = parts.map(([, j]) => {
              const compact = compactJson(j + nl)
              if (compact === j + nl) return j
              const lineBreak = (j + nl).endsWith('\r\n') ? '\r\n' : '\n'
              return (compact + lineBreak).slice(0, -nl.length) // build() appends nl itself
            })
            let i = 0
            const expected = build(() => bodies[i++]!)
            const out = compactJsonBlocks(input)
            expect(out.text).toBe(expected)
            expect(compactJsonBlocks(out.text).text).toBe(out.text)
          },
        ),
        { numRuns: 300 },
      )
    })

    it('the JSON in each block parses to the same value with the same tokens', () => {
      fc.assert(
        fc.property(jsonContainerText, (j) => {
          const out = compactJsonBlocks('Result:\n```json\n' + j + '\n```\n').text
          const body = out.slice('Result:\n```json\n'.length, -'\n```\n'.length)
          expect(JSON.parse(body)).toEqual(JSON.parse(j))
          expect(jsonTokens(body)).toEqual(jsonTokens(j))
        }),
        { numRuns: 300 },
      )
    })

    it('on any text, only JSON whitespace is removed, and running twice changes nothing more', () => {
      const arbitraryText = fc.string({ unit: fc.constantFrom('`', '~', ' ', '\n', 'json', '{', '}', '"', '1', ',', ':', '[', ']'), maxLength: 60 })
      fc.assert(
        fc.property(arbitraryText, (text) => {
          const out = compactJsonBlocks(text).text
          expect(out.replace(/[ \t\r\n]/g, '')).toBe(text.replace(/[ \t\r\n]/g, ''))
          expect(compactJsonBlocks(out).text).toBe(out)
        }),
        { numRuns: 2000 },
      )
    })
  })
})
