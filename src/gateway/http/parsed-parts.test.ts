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

/** The bytes a text was decoded from, as the body reader hands them over. */
const bytesOf = (text: string) => {
  const raw = Buffer.from(text)
  return { raw, ascii: raw.length === text.length }
}

/** A body as the reader hands it over: its text and the bytes it was decoded from. */
const parse = (parts: ParsedParts, body: unknown, scope: string) => {
  const text = JSON.stringify(body)
  return parts.parse(text, scope, bytesOf(text))
}

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
    parts.parse(good, 'o', bytesOf(good))
    for (const bad of [good.replace('"assistant"', 'assistant'), good.slice(0, -1), good.replace('"content"', '"content" x'), good + ',']) {
      let expected: unknown
      try {
        JSON.parse(bad)
      } catch (error) {
        expected = error
      }
      expect(expected).toBeInstanceOf(SyntaxError)
      expect(() => parts.parse(bad, 'o', bytesOf(bad))).toThrow((expected as Error).message)
    }
  })

  it('refuses nesting past the limit exactly where the depth check does, in any member or element', () => {
    const parts = new ParsedParts()
    for (const depth of [MAX_JSON_DEPTH - 3, MAX_JSON_DEPTH - 2, MAX_JSON_DEPTH - 1, MAX_JSON_DEPTH]) {
      const nested = '['.repeat(depth) + ']'.repeat(depth)
      const history = JSON.stringify(conversation(2))
      for (const text of [`{"messages":[${nested},${history.slice(1)}}`, `{"messages":${history},"extra":${nested}}`, `{"messages":[{"role":"user","content":${nested}},${history.slice(1)}}`]) {
        if (jsonNestsDeeperThan(text)) expect(() => parts.parse(text, 'o', bytesOf(text))).toThrow(TooDeep)
        else expect(parts.parse(text, 'o', bytesOf(text)).value).toEqual(JSON.parse(text))
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

  it('remembers tool definitions of any size, in the same scope only', () => {
    const parts = new ParsedParts()
    const tools = [{ type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }]
    expect(JSON.stringify(tools[0]).length).toBeLessThan(SHORTEST_REMEMBERED_CHARS)
    // A fresh body each time (another question), as a parse without beginnings would read it too.
    const body = (n: number) => ({ model: 'm', messages: [{ role: 'system', content: long('instructions', SHORTEST_SPLIT_BODY_CHARS) }, { role: 'user', content: `question ${n}` }], tools })
    const first = parse(parts, body(1), 'org-a').value as { tools: object[] }
    const again = parse(parts, body(2), 'org-a').value as { tools: object[] }
    expect(again.tools).toEqual(tools)
    expect(again.tools[0]).toBe(first.tools[0])
    expect(Object.isFrozen(again.tools[0])).toBe(true)
    expect((parse(parts, body(3), 'org-b').value as { tools: object[] }).tools[0]).not.toBe(again.tools[0])
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

  it('parses an element too large to keep where it is, and remembers the others', () => {
    const budget = 16 * SHORTEST_SPLIT_BODY_CHARS
    const parts = new ParsedParts(budget)
    // Its text and its value together would take more than a quarter of the budget.
    const huge = { role: 'user', content: 'x'.repeat(budget / 8) }
    const text = JSON.stringify({ messages: [...conversation(1), huge] })
    const value = parts.parse(text, 'o', bytesOf(text)).value as { messages: object[] }
    expect(value).toEqual(JSON.parse(text))
    expect(Object.isFrozen(value.messages[1])).toBe(true)
    expect(Object.isFrozen(value.messages[2])).toBe(false)
    expect(parts.rememberedChars).toBeLessThan(huge.content.length)
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

  it('continues a conversation from where the last body of the scope ended, as JSON.parse reads every body', () => {
    const short = fc.record({ role: fc.constantFrom('user', 'assistant', 'tool'), content: fc.string({ maxLength: 20 }) })
    const message = fc.oneof(short, short.map((m) => ({ ...m, content: long(m.content) })), fc.jsonValue({ maxDepth: 2 }))
    // What a client sends after the conversation: members that change from turn to turn, some of them named again.
    const trailing = fc.dictionary(fc.constantFrom('model', 'tools', 'stream', 'temperature', 'system', 'messages', 'input'), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 })
    const step = fc.record({ added: fc.array(message, { maxLength: 3 }), trailing, edit: fc.boolean(), space: fc.constantFrom(undefined, 1), cut: fc.nat(40) })
    fc.assert(
      fc.property(fc.constantFrom('messages', 'input'), fc.array(step, { minLength: 1, maxLength: 6 }), (name, steps) => {
        const parts = new ParsedParts()
        let history: unknown[] = conversation(1)
        for (const { added, trailing, edit, space, cut } of steps) {
          history = [...history, ...added]
          if (edit && history.length > 2) history = history.map((m, i) => (i === 1 ? { role: 'user', content: long('edited') } : m))
          const text = JSON.stringify({ model: 'm', [name]: history, ...trailing }, null, space)
          // Now and then a body cut short, which is refused as JSON.parse refuses it.
          const sent = cut === 0 ? text.slice(0, -2) : text
          let expected: unknown
          try {
            expected = JSON.parse(sent)
          } catch (error) {
            expect(() => parts.parse(sent, 'o', bytesOf(sent))).toThrow((error as Error).message)
            continue
          }
          const { value, members } = parts.parse(sent, 'o', bytesOf(sent))
          expect(value).toEqual(expected)
          for (const [member, span] of members ?? []) expect(JSON.parse(sent.slice(span.start, span.end))).toEqual((expected as Record<string, unknown>)[member])
        }
      }),
      { numRuns: 300 },
    )
  })

  it('hands the next turn the very elements of the last, short ones too, frozen, in its own scope only', () => {
    const parts = new ParsedParts()
    const shortTurn = (i: number) => ({ role: 'assistant', content: null, tool_calls: [{ id: `call_${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }] })
    const history = [...conversation(1), shortTurn(0)]
    const first = parse(parts, { model: 'm', messages: history, tools: [] }, 'org-a').value as { messages: object[] }
    const next = parse(parts, { model: 'm', messages: [...history, shortTurn(1)], tools: [] }, 'org-a').value as { messages: object[] }
    expect(next.messages[2]).toBe(first.messages[2])
    expect(Object.isFrozen(next.messages[3])).toBe(true)
    const third = parse(parts, { model: 'm', messages: [...history, shortTurn(1), shortTurn(2)], tools: [] }, 'org-a').value as { messages: object[] }
    expect(third.messages[3]).toBe(next.messages[3])
    // Another conversation parsed whole in between, and then continued itself.
    const other = [...conversation(1, 'other'), shortTurn(9)]
    const otherFirst = parse(parts, { model: 'm', messages: other }, 'org-c').value as { messages: object[] }
    const another = [...conversation(1, 'another'), shortTurn(8)]
    const anotherFirst = parse(parts, { model: 'm', messages: another }, 'org-c').value as { messages: object[] }
    const anotherNext = parse(parts, { model: 'm', messages: [...another, shortTurn(10)] }, 'org-c').value as { messages: object[] }
    expect(anotherNext.messages[2]).toBe(anotherFirst.messages[2])
    expect(otherFirst.messages[2]).not.toBe(anotherNext.messages[2])
    const elsewhere = parse(parts, { model: 'm', messages: [...history, shortTurn(1)], tools: [] }, 'org-b').value as { messages: object[] }
    expect(elsewhere.messages).toEqual(next.messages)
    expect(elsewhere.messages[2]).not.toBe(next.messages[2])
  })

  it('keeps no beginning of a body that is not well-formed UTF-8, whose text is not its bytes', () => {
    const parts = new ParsedParts()
    const shortTurn = (i: number) => ({ role: 'assistant', content: `step ${i}` })
    // Invalid bytes in the model's name: each decodes to U+FFFD, three bytes where the body had one.
    const body = (turns: number) => {
      const text = JSON.stringify({ model: 'm\u0000', messages: [...conversation(1), ...Array.from({ length: turns }, (_, i) => shortTurn(i))] })
      const raw = Buffer.from(text.replace('\\u0000', '\u00ff\u00fe'), 'latin1')
      return { raw, text: raw.toString('utf8') }
    }
    let last: object[] = []
    for (let turns = 1; turns <= 3; turns++) {
      const { raw, text } = body(turns)
      const value = parts.parse(text, 'o', { raw, ascii: false }).value as { messages: object[] }
      expect(value).toEqual(JSON.parse(text))
      // Parsed whole each time, and nothing kept to continue: the short messages are the body's own.
      if (turns > 1) expect(value.messages[2]).not.toBe(last[2])
      expect(parts.beginningsKept).toBe(0)
      last = value.messages
    }
    // The same turns in well-formed UTF-8 leave a beginning.
    const wellFormed = JSON.stringify({ model: 'é', messages: [...conversation(1), shortTurn(0)] })
    parts.parse(wellFormed, 'o', bytesOf(wellFormed))
    expect(parts.beginningsKept).toBe(1)
  })
})

/** A text as long as a body worth splitting, ASCII (escapes included). */
const asciiLong = (label: string) => `${label} ${'x\n"y\\'.repeat(SHORTEST_SPLIT_BODY_CHARS / 4)}`

/** The body as the reader hands it over (an ASCII body's bytes tried first, then its text), and whether its bytes were continued undecoded. */
const read = (parts: ParsedParts, text: string, scope: string) => {
  const raw = Buffer.from(text)
  const ascii = raw.length === text.length
  const continued = ascii ? parts.continueBytes(raw, scope) : undefined
  return { ...(continued ?? parts.parse(text, scope, { raw, ascii, beginningsTried: ascii })), continued: continued !== undefined }
}

describe('ParsedParts, a body that shares only its first elements with a beginning', () => {
  const shortMessage = (label: string) => ({ role: 'user', content: `${label}` })

  it('reads every body as JSON.parse does, whichever elements it shares with the ones before', () => {
    const element = fc.oneof(
      fc.constantFrom('system', 'again').map((label) => ({ role: 'system', content: asciiLong(label) })),
      fc.string({ maxLength: 12 }).map(shortMessage),
      fc.jsonValue({ maxDepth: 2 }),
    )
    // Each body keeps the first `keep` elements of the one before and adds its own: a changed last
    // question, an edited recent message, a history cut short, another conversation.
    const step = fc.record({ keep: fc.nat(6), added: fc.array(element, { maxLength: 3 }), scope: fc.constantFrom('a', 'a', 'b'), space: fc.constantFrom(undefined, 1), trailing: fc.dictionary(fc.constantFrom('model', 'stream', 'messages', 'input'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }) })
    fc.assert(
      fc.property(fc.constantFrom('messages', 'input'), fc.array(step, { minLength: 2, maxLength: 8 }), (name, steps) => {
        const parts = new ParsedParts()
        let history: unknown[] = [{ role: 'system', content: asciiLong('system') }]
        for (const { keep, added, scope, space, trailing } of steps) {
          history = [...history.slice(0, Math.max(1, keep)), ...added]
          const text = JSON.stringify({ model: 'm', [name]: history, ...trailing }, null, space)
          const expected = JSON.parse(text) as Record<string, unknown>
          const { value, members } = read(parts, text, scope)
          expect(value).toEqual(expected)
          for (const [member, span] of members ?? []) expect(JSON.parse(text.slice(span.start, span.end))).toEqual(expected[member])
        }
      }),
      { numRuns: 300 },
    )
  })

  it('continues a prompt with another last message from the elements before it, without decoding them', () => {
    const parts = new ParsedParts()
    const shared = [{ role: 'system', content: asciiLong('instructions') }, ...Array.from({ length: 6 }, (_, i) => shortMessage(`earlier ${i}`))]
    const body = (question: string) => JSON.stringify({ model: 'm', messages: [...shared, shortMessage(question)], max_tokens: 16 })
    const first = read(parts, body('first question'), 'o').value as { messages: object[] }
    for (const question of ['second question', 'third']) {
      const raw = Buffer.from(body(question))
      const continued = parts.continueBytes(raw, 'o')
      expect(continued?.value).toEqual(JSON.parse(body(question)))
      const messages = (continued!.value as { messages: object[] }).messages
      // The short messages before the question are the first body's very elements, frozen.
      for (let i = 1; i < shared.length; i++) expect(messages[i]).toBe(first.messages[i])
      expect(Object.isFrozen(messages.at(-1))).toBe(true)
    }
    // One beginning: each prompt replaced the one whose last message it changed.
    expect(parts.beginningsKept).toBe(1)
    // Another organization shares nothing of it.
    expect(parts.continueBytes(Buffer.from(body('fourth')), 'other')).toBeUndefined()
  })

  it('keeps the beginnings of two agents with the same instructions, each continued whole', () => {
    const parts = new ParsedParts()
    const instructions = { role: 'system', content: asciiLong('instructions') }
    const histories = { a: [instructions, shortMessage('task a')], b: [instructions, shortMessage('task b')] }
    const values: Record<string, { messages: object[] }> = {}
    for (let turn = 0; turn < 4; turn++) {
      for (const agent of ['a', 'b'] as const) {
        histories[agent] = [...histories[agent], shortMessage(`${agent} step ${turn}`)]
        const text = JSON.stringify({ model: 'm', messages: histories[agent] })
        const value = read(parts, text, 'o').value as { messages: object[] }
        expect(value).toEqual(JSON.parse(text))
        // From its second turn on, an agent's history is its last body's elements.
        if (turn > 0) for (let i = 1; i < histories[agent].length - 1; i++) expect(value.messages[i]).toBe(values[agent]!.messages[i])
        values[agent] = value
      }
    }
  })

  it('continues from the shared elements only when they are at least half the body', () => {
    const parts = new ParsedParts()
    const instructions = { role: 'system', content: asciiLong('instructions') }
    read(parts, JSON.stringify({ messages: [instructions, shortMessage('question')] }), 'o')
    const mostlyNew = JSON.stringify({ messages: [instructions, { role: 'user', content: asciiLong('a long new message').repeat(2) }] })
    expect(parts.continueBytes(Buffer.from(mostlyNew), 'o')).toBeUndefined()
    expect(read(parts, mostlyNew, 'o').value).toEqual(JSON.parse(mostlyNew))
  })
})

describe('ParsedParts, a long system prompt or instructions as one text', () => {

  it('reads every body as JSON.parse does, wherever the text is and whatever else changes', () => {
    const text = fc.oneof(
      fc.constantFrom('one', 'two').map(asciiLong),
      fc.constantFrom('é unicode', 'short').map((label) => (label === 'short' ? label : `${label} ${asciiLong(label)}`)),
      fc.array(fc.constantFrom('one', 'two').map((label) => ({ type: 'text', text: asciiLong(label) })), { maxLength: 2 }),
      fc.jsonValue({ maxDepth: 1 }),
    )
    const message = fc.oneof(fc.string({ maxLength: 12 }).map((content) => ({ role: 'user', content })), fc.jsonValue({ maxDepth: 2 }))
    const step = fc.record({
      member: fc.constantFrom('system', 'instructions'),
      text,
      textFirst: fc.boolean(),
      name: fc.constantFrom('messages', 'input'),
      conversation: fc.array(message, { maxLength: 3 }),
      scope: fc.constantFrom('a', 'a', 'b'),
      space: fc.constantFrom(undefined, 1),
      trailing: fc.dictionary(fc.constantFrom('model', 'stream', 'system', 'instructions', 'messages'), fc.jsonValue({ maxDepth: 1 }), { maxKeys: 2 }),
    })
    fc.assert(
      fc.property(fc.array(step, { minLength: 2, maxLength: 8 }), (steps) => {
        const parts = new ParsedParts()
        for (const { member, text: value, textFirst, name, conversation, scope, space, trailing } of steps) {
          const body = textFirst ? { model: 'm', [member]: value, [name]: conversation } : { model: 'm', [name]: conversation, [member]: value }
          const json = JSON.stringify({ ...body, ...trailing }, null, space)
          const expected = JSON.parse(json) as Record<string, unknown>
          const { value: got, members } = read(parts, json, scope)
          expect(got).toEqual(expected)
          for (const [key, span] of members ?? []) expect(JSON.parse(json.slice(span.start, span.end))).toEqual(expected[key])
        }
      }),
      { numRuns: 300 },
    )
  })

  for (const [api, member, conversation] of [
    ['Messages', 'system', 'messages'],
    ['Responses', 'instructions', 'input'],
  ] as const) {
    it(`continues a ${api} prompt with another question from its ${member}, without decoding it`, () => {
      const parts = new ParsedParts()
      const body = (question: string) => JSON.stringify({ model: 'm', [member]: asciiLong('instructions'), [conversation]: [{ role: 'user', content: question }], max_tokens: 16 })
      expect(read(parts, body('first question'), 'o').continued).toBe(false)
      for (const question of ['second question', 'third', 'a fourth, longer question than the others']) {
        const { value, continued } = read(parts, body(question), 'o')
        expect(continued).toBe(true)
        expect(value).toEqual(JSON.parse(body(question)))
      }
      // One beginning: each prompt replaced the one whose question it changed.
      expect(parts.beginningsKept).toBe(1)
      expect(parts.continueBytes(Buffer.from(body('fifth')), 'other')).toBeUndefined()
      // Another text is not the one remembered.
      const other = JSON.stringify({ model: 'm', [member]: asciiLong('other instructions'), [conversation]: [{ role: 'user', content: 'q' }] })
      expect(read(parts, other, 'o')).toMatchObject({ continued: false, value: JSON.parse(other) })
    })
  }

  it('tells of a continued body which kept beginning its first bytes are, and how many, and what it leaves kept', () => {
    const parts = new ParsedParts()
    let input: object[] = [{ role: 'user', content: 'task' }]
    let last: { raw: Buffer; kept: object | undefined } | undefined
    for (let turn = 0; turn < 6; turn++) {
      input = [...input, { type: 'function_call_output', call_id: `c${turn}`, output: `result ${turn}` }]
      const raw = Buffer.from(JSON.stringify({ model: 'm', instructions: asciiLong('instructions'), input }))
      const continued = parts.continueBytes(raw, 'o')?.continued
      if (turn === 0) expect(continued).toBeUndefined()
      else {
        expect(continued).toBeDefined()
        const { sharedWith, sharedBytes, kept } = continued!
        expect(sharedBytes).toBeGreaterThan(raw.length / 2)
        expect(raw.subarray(0, sharedBytes).equals(last!.raw.subarray(0, sharedBytes))).toBe(true)
        // From the third turn on, the beginning it goes on from is the one the last turn left.
        if (turn > 1) expect(sharedWith).toBe(last!.kept)
        expect(kept).toBeDefined()
      }
      last = { raw, kept: continued?.kept }
      if (turn === 0) parts.parse(raw.toString(), 'o', { raw, ascii: true, beginningsTried: true })
    }
  })

  it('continues an agent whose instructions come before its conversation, turn after turn', () => {
    const parts = new ParsedParts()
    let input: object[] = [{ role: 'user', content: 'task' }]
    for (let turn = 0; turn < 5; turn++) {
      input = [...input, { type: 'function_call_output', call_id: `c${turn}`, output: `result ${turn}` }]
      const text = JSON.stringify({ model: 'm', instructions: asciiLong('instructions'), input })
      const { value, continued } = read(parts, text, 'o')
      expect(value).toEqual(JSON.parse(text))
      expect(continued).toBe(turn > 0)
    }
  })
})
