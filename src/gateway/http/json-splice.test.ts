import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { sameJson, sentAsIs, SHORTEST_SPLICED_CHARS, SHORTEST_SPLICED_ITEM_CHARS, spliceClientMembers, type ClientBody } from './json-splice'

/** A body as the gateway reads it from these bytes. */
const read = (raw: Buffer): ClientBody => {
  const text = raw.toString('utf8')
  return { value: JSON.parse(text) as unknown, text, raw }
}
const long = (label: string) => `${label} ${'x'.repeat(SHORTEST_SPLICED_CHARS + 8 * SHORTEST_SPLICED_ITEM_CHARS)}`

describe('spliceClientMembers', () => {
  it('writes the same JSON value as JSON.stringify, with the members sent as they are taken from the client bytes', () => {
    const message = fc.record({ role: fc.constantFrom('system', 'user', 'assistant'), content: fc.string({ minLength: 0, maxLength: 40 }) })
    fc.assert(
      fc.property(
        fc.array(message, { minLength: 1, maxLength: 6 }),
        fc.dictionary(fc.constantFrom('temperature', 'top_p', 'stop', 'seed', 'metadata'), fc.jsonValue({ maxDepth: 2 })),
        fc.constantFrom(undefined, 1, '\t'),
        (messages, extra, space) => {
          messages.push({ role: 'user', content: long('the prompt') })
          const source = read(Buffer.from(JSON.stringify({ model: 'client-name', ...extra, messages, stream: false }, null, space)))
          const sent = source.value as { messages: unknown }
          const body = { ...extra, model: 'server-name', messages: sent.messages, stream: true, max_tokens: 16 }
          const spliced = spliceClientMembers(source, body, ['messages', 'tools'], (v) => JSON.stringify(v))
          expect(spliced).toBeDefined()
          expect(JSON.parse(spliced!.text)).toEqual(JSON.parse(JSON.stringify(body)))
          expect(spliced!.bytes.joined().toString('utf8')).toBe(spliced!.text)
        },
      ),
      { numRuns: 200 },
    )
  })

  it('serializes as usual when what would be sent differs from what the client sent', () => {
    const source = read(Buffer.from(JSON.stringify({ messages: [{ role: 'developer', content: long('a') }] })))
    const normalized = [{ role: 'system', content: (source.value as { messages: Array<{ content: string }> }).messages[0]!.content }]
    expect(spliceClientMembers(source, { model: 'm', messages: normalized }, ['messages'], JSON.stringify)).toBeUndefined()
    // A member the gateway drops, or one it adds, is a difference too.
    const withName = read(Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: long('a'), name: 'bob' }] })))
    const withoutName = [{ role: 'user', content: (withName.value as { messages: Array<{ content: string }> }).messages[0]!.content }]
    expect(spliceClientMembers(withName, { messages: withoutName }, ['messages'], JSON.stringify)).toBeUndefined()
  })

  it('splices nothing from bytes that are not ASCII, nor short members, nor a history of short messages', () => {
    const accented = read(Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: long('café') }] })))
    expect(spliceClientMembers(accented, { messages: (accented.value as { messages: unknown }).messages }, ['messages'], JSON.stringify)).toBeUndefined()
    // An invalid byte decodes to U+FFFD, one character for one byte: the lengths agree, the bytes are not the text.
    const invalid = Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: long('a?b') }] }))
    invalid[invalid.indexOf('?')] = 0x80
    const broken = read(invalid)
    expect(broken.text.length).toBe(invalid.length)
    expect(spliceClientMembers(broken, { messages: (broken.value as { messages: unknown }).messages }, ['messages'], JSON.stringify)).toBeUndefined()
    // Many short messages: finding them costs more than writing them again.
    const many = read(Buffer.from(JSON.stringify({ messages: Array.from({ length: 40 }, (_, i) => ({ role: 'user', content: `message ${i} `.repeat(50) })) })))
    expect(many.text.length).toBeGreaterThan(SHORTEST_SPLICED_CHARS)
    expect(spliceClientMembers(many, { messages: (many.value as { messages: unknown }).messages }, ['messages'], JSON.stringify)).toBeUndefined()
    const short = read(Buffer.from(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] })))
    expect(spliceClientMembers(short, { messages: (short.value as { messages: unknown }).messages }, ['messages'], JSON.stringify)).toBeUndefined()
  })

  it('takes the member JSON.parse kept when a name is written twice', () => {
    const source = read(Buffer.from(`{"messages":[{"role":"user","content":"first"}],"messages":[{"role":"user","content":"${long('second')}"}]}`))
    const span = sentAsIs(source, 'messages', (source.value as { messages: unknown }).messages)
    expect(JSON.parse(source.text.slice(span!.start, span!.end))).toEqual([{ role: 'user', content: long('second') }])
  })
})

describe('sameJson', () => {
  it('says two values are the same JSON exactly when their JSON text parses equal', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 3 }), fc.jsonValue({ maxDepth: 3 }), (a, b) => {
        const copy = JSON.parse(JSON.stringify(a)) as unknown
        expect(sameJson(a, copy, 0)).toBe(true)
        expect(sameJson(a, b, 0)).toBe(JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b)))
      }),
      { numRuns: 300 },
    )
    expect(sameJson({ a: 1, b: undefined }, { a: 1 }, 0)).toBe(true)
    expect(sameJson({ a: 1 }, { a: 1, b: 2 }, 0)).toBe(false)
    expect(sameJson([1, 2], { 0: 1, 1: 2 }, 0)).toBe(false)
  })
})

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  return Object.fromEntries(Object.keys(value).sort().map((key) => [key, sortKeys((value as Record<string, unknown>)[key])]))
}
