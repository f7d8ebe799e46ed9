import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { topLevelMembers } from './json-members'

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
