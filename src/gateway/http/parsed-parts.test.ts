import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth'
import { ParsedParts, SHORTEST_REMEMBERED_CHARS, SHORTEST_SPLIT_BODY_CHARS, TooDeep } from './parsed-parts'

const long = (label: string, extra = 0) => `${label} ${'é\n"x\\'.repeat((SHORTEST_REMEMBERED_CHARS + extra) / 4)}`
/** A conversation long enough to be split, its messages long enough to be remembered. */
const conversation = (turns: number, label = 'turn') => [
  { role: 'system', content: long('instructions', SHORTEST_SPLIT_BODY_CHARS) },
  ...Array.from({ length: turns }, (_, i) => ({ role: i % 2 === 0 ? 'user' : 'assistant', content: long(`${label} ${i}`) })),
]

describe('ParsedParts', () => {
  it('gives what JSON.parse gives, for any body, spacing and history, parsed once or again', () => {
    const parts = new ParsedParts()
    const message = fc.oneof(
      fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: fc.oneof(fc.string({ maxLength: 30 }), fc.string({ maxLength: 30 }).map((s) => long(s))) }),
      fc.jsonValue({ maxDepth: 3 }),
    )
    fc.assert(
      fc.property(
        fc.array(message, { maxLength: 8 }),
        fc.dictionary(fc.constantFrom('model', 'tools', 'input', 'system', 'stream', 'temperature', '__proto__', 'messages '), fc.jsonValue({ maxDepth: 3 })),
        fc.constantFrom(undefined, 1, '\t', '\n'),
        fc.constantFrom('a', 'b'),
        (messages, extra, space, scope) => {
          const body = { ...extra, messages: [...conversation(1), ...messages] }
          const text = JSON.stringify(body, null, space)
          for (let round = 0; round < 2; round++) expect(parts.parse(text, scope).value).toEqual(JSON.parse(text))
        },
      ),
      { numRuns: 300 },
    )
  })

  it('reads a member written twice as JSON.parse does: the last one', () => {
    const first = JSON.stringify(conversation(2, 'first'))
    const last = JSON.stringify(conversation(2, 'last'))
    const text = `{"messages":${first},"model":"m","messages":${last}}`
    expect(new ParsedParts().parse(text, 'o').value).toEqual(JSON.parse(text))
    const arrayThenString = `{"messages":${first},"messages":"plain"}`
    expect(new ParsedParts().parse(arrayThenString, 'o').value).toEqual(JSON.parse(arrayThenString))
  })

  it('refuses what JSON.parse refuses, with its own message about the whole body', () => {
    const good = JSON.stringify({ messages: conversation(3) })
    const parts = new ParsedParts()
    parts.parse(good, 'o')
    for (const bad of [good.replace('"assistant"', 'assistant'), good.slice(0, -1), good.replace('"content"', '"content" x'), good + ',']) {
      let expected: unknown
      try {
        JSON.parse(bad)
      } catch (error) {
        expected = error
      }
      expect(expected).toBeInstanceOf(SyntaxError)
      expect(() => parts.parse(bad, 'o')).toThrow((expected as Error).message)
    }
  })

  it('refuses nesting past the limit exactly where the depth check does, in any member or element', () => {
    const parts = new ParsedParts()
    for (const depth of [MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth)
      const history = JSON.stringify(conversation(2))
      for (const text of [`{"messages":[${nested},${history.slice(1)}}`, `{"messages":${history},"extra":${nested}}`, `{"messages":[{"role":"user","content":${nested}},${history.slice(1)}}`]) {
        if (jsonNestsDeeperThan(text)) expect(() => parts.parse(text, 'o')).toThrow(TooDeep)
        else expect(parts.parse(text, 'o').value).toEqual(JSON.parse(text))
      }
    }
  })

  it('reuses a history sent again in the same scope, frozen, and never across scopes', () => {
    const parts = new ParsedParts()
    const turn1 = parts.parse(JSON.stringify({ model: 'm', messages: conversation(2) }), 'org-a').value as { messages: object[] }
    const turn2 = parts.parse(JSON.stringify({ model: 'm', messages: conversation(3) }), 'org-a').value as { messages: object[] }
    expect(turn2.messages.slice(0, 3)).toEqual(turn1.messages)
    for (let i = 0; i < 3; i++) expect(turn2.messages[i]).toBe(turn1.messages[i])
    expect(Object.isFrozen(turn2.messages[0])).toBe(true)
    expect(() => {
      ;(turn2.messages[0] as { content: string }).content = 'changed'
    }).toThrow(TypeError)
    // The arrays and the body are the request's own.
    expect(Object.isFrozen(turn2.messages)).toBe(false)
    const other = parts.parse(JSON.stringify({ model: 'm', messages: conversation(3) }), 'org-b').value as { messages: object[] }
    expect(other.messages).toEqual(turn2.messages)
    expect(other.messages[0]).not.toBe(turn2.messages[0])
  })

  it('tells a changed old message from the one remembered', () => {
    const parts = new ParsedParts()
    const history = conversation(3)
    parts.parse(JSON.stringify({ messages: history }), 'o')
    const edited = history.map((m, i) => (i === 2 ? { ...m, content: m.content.slice(0, -1) + 'y' } : m))
    expect(parts.parse(JSON.stringify({ messages: edited }), 'o').value).toEqual({ messages: edited })
  })

  it('keeps within its budget, the oldest going first', () => {
    const budget = 16 * SHORTEST_SPLIT_BODY_CHARS
    const parts = new ParsedParts(budget)
    for (let n = 0; n < 40; n++) {
      parts.parse(JSON.stringify({ messages: conversation(4, `conversation ${n}`) }), 'o')
      expect(parts.rememberedChars).toBeLessThanOrEqual(budget)
    }
    expect(parts.rememberedChars).toBeGreaterThan(0)
  })

  it('parses short bodies whole and remembers nothing of them, nor anything with no budget', () => {
    const parts = new ParsedParts()
    parts.parse(JSON.stringify({ messages: [{ role: 'user', content: 'hi' }] }), 'o')
    expect(parts.rememberedChars).toBe(0)
    const none = new ParsedParts(0)
    const text = JSON.stringify({ messages: conversation(3) })
    expect(none.parse(text, 'o').value).toEqual(JSON.parse(text))
    expect(Object.isFrozen((none.parse(text, 'o').value as { messages: object[] }).messages[0])).toBe(false)
  })
})
