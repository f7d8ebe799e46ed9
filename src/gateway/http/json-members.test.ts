import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { membersAfterElement, topLevelMembers, type Span } from './json-members'

/** Each member's value as its span's text reads, for comparison with JSON.parse. */
const valuesOf = (text: string): Record<string, unknown> | undefined => {
  const members = topLevelMembers(text)
  if (members === undefined) return undefined
  return Object.fromEntries([...members].map(([name, span]) => [name, JSON.parse(text.slice(span.start, span.end)) as unknown]))
}

describe('topLevelMembers', () => {
  it('finds every member of any object as JSON.parse reads it, however it is spaced', () => {
    const json = fc.jsonValue({ maxDepth: 4 })
    fc.assert(
      fc.property(fc.dictionary(fc.string().filter((name) => name !== '__proto__'), json), fc.constantFrom(undefined, 1, 2, '\t', ' \r\n '), (object, space) => {
        const text = JSON.stringify(object, null, space)
        const found = topLevelMembers(text)
        // Names JSON.stringify writes with an escape are refused, never read wrongly.
        if (Object.keys(object).some((name) => JSON.stringify(name).includes('\\'))) return found === undefined
        expect(valuesOf(text)).toEqual(JSON.parse(text))
        return true
      }),
      { numRuns: 300 },
    )
  })

  it('reads strings with escaped quotes and brackets in them, and nested values, to their end', () => {
    const text = '{ "a" : "x\\"}]\\\\" , "b":[{"c":"]}\\""},[]] ,"n": -1.5e3,"t":true,"z":null }'
    expect(valuesOf(text)).toEqual(JSON.parse(text))
    expect(topLevelMembers('{}')?.size).toBe(0)
  })

  it('gives the last of two members of one name, as JSON.parse keeps', () => {
    const text = '{"messages":[1],"model":"m","messages":[2,3]}'
    expect(valuesOf(text)).toEqual({ messages: [2, 3], model: 'm' })
  })

  it('refuses a name written with an escape, and anything not an object', () => {
    expect(topLevelMembers('{"messages":[1],"messag\\u0065s":[2]}')).toBeUndefined()
    expect(topLevelMembers('[1,2]')).toBeUndefined()
    expect(topLevelMembers('"text"')).toBeUndefined()
  })
})

describe('membersAfterElement', () => {
  it('reads the rest of a body from after any element of its array, or from its opening bracket', () => {
    const json = fc.jsonValue({ maxDepth: 3 })
    // Not integer-like (JavaScript orders those first): every one is written after the array.
    const names = fc.string({ maxLength: 6 }).map((name) => `k${name}`).filter((name) => !JSON.stringify(name).includes('\\'))
    fc.assert(
      fc.property(fc.array(json, { maxLength: 5 }), fc.dictionary(names, json, { maxKeys: 3 }), fc.nat(5), fc.constantFrom(undefined, 1, '\t'), (elements, after, cut, space) => {
        const text = JSON.stringify({ messages: elements, ...after }, null, space)
        // As JSON reads them back (-0 is written 0, say).
        const { messages: written, ...others } = JSON.parse(text) as { messages: unknown[] } & Record<string, unknown>
        const found = new Map<string, Span[]>()
        const members = topLevelMembers(text, new Set(['messages']), found)!
        const spans = found.get('messages')!
        const count = Math.min(cut, spans.length)
        // From after element `count`, or, with none, from just after the bracket.
        const tail = text.slice(count === 0 ? members.get('messages')!.start + 1 : spans[count - 1]!.end)
        const rest = new Map<string, Span[]>()
        const read = membersAfterElement(tail, 'messages', new Set(['messages']), rest, { deepest: 0 }, count === 0)!
        const parsed = (span: Span): unknown => JSON.parse(tail.slice(span.start, span.end))
        expect(rest.get('messages')!.map(parsed)).toEqual(written.slice(count))
        expect(tail[read.arrayEnd - 1]).toBe(']')
        expect(Object.fromEntries([...read.members].map(([name, span]) => [name, parsed(span)]))).toEqual(others)
      }),
      { numRuns: 300 },
    )
  })

  it('refuses a text that does not go on from where it is said to start', () => {
    const rest = () => new Map<string, Span[]>()
    expect(membersAfterElement('1,2]}', 'messages', new Set(), rest(), { deepest: 0 })).toBeUndefined()
    expect(membersAfterElement(',1]}', 'messages', new Set(), rest(), { deepest: 0 }, true)).toBeUndefined()
    expect(membersAfterElement(']}', 'messages', new Set(), rest(), { deepest: 0 }, true)).toEqual({ arrayEnd: 1, members: new Map() })
  })
})
