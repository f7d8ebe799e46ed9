import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChatMessage, ChatTool } from '../../shared/api/chat-request'
import { deepFreeze } from '../../shared/api/element-results'
import { countTemplateTokens, renderQwen2Prompt } from './chat-template'
import { o200kTokenizer } from './gpt-tokenizer'
import { DEFAULT_CACHE_CHARS, PromptCounter, promptCounterFor, SHORTEST_CACHED_PROMPT_CHARS } from './prompt-counter'
import type { Tokenizer } from './tokenizer'
import { ENTRIES_SIZE_KEPT } from '../../shared/api/kept-by-last-item'

/** o200k with a log of what it was asked to count. */
function spiedTokenizer(withBound = true): Tokenizer & { counted: string[] } {
  const counted: string[] = []
  const { bounds, ...rest } = o200kTokenizer
  return {
    ...rest,
    ...(withBound && bounds !== undefined ? { bounds } : {}),
    counted,
    count: (text) => {
      counted.push(text)
      return o200kTokenizer.count(text)
    },
  }
}

const long = (label: string) => `${label}: ${'a fairly long message that is worth remembering, '.repeat(3)}`
const tools: ChatTool[] = [{ type: 'function', function: { name: 'lookup', description: long('tool'), parameters: { type: 'object' } } }]

function conversation(turns: number): ChatMessage[] {
  const messages: ChatMessage[] = [{ role: 'system', content: long('system') }]
  for (let i = 0; i < turns; i++) {
    messages.push({ role: 'user', content: long(`question ${i}`) }, { role: 'assistant', content: long(`answer ${i}`) })
  }
  return messages
}

describe('PromptCounter', () => {
  it('counts what countTemplateTokens counts', () => {
    const counter = new PromptCounter(o200kTokenizer)
    const cases: [ChatMessage[], ChatTool[]][] = [
      [[{ role: 'user', content: 'Hi' }], []],
      [conversation(3), tools],
      [
        [
          { role: 'user', content: long('go') },
          { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'lookup', arguments: '{"q": 1}' } }] },
          { role: 'tool', content: long('result 1'), tool_call_id: 'c' },
          { role: 'tool', content: long('result 2'), tool_call_id: 'c' },
        ],
        tools,
      ],
    ]
    for (const [messages, withTools] of cases) {
      const pieces = renderQwen2Prompt(messages, withTools)
      const expected = countTemplateTokens(pieces, o200kTokenizer)
      expect(counter.count(pieces)).toBe(expected)
      expect(counter.count(pieces)).toBe(expected) // and again, from the cache
    }
  })

  it("tokenizes a conversation's history once, not on every turn", () => {
    const tokenizer = spiedTokenizer()
    const counter = new PromptCounter(tokenizer)
    counter.count(renderQwen2Prompt(conversation(5), tools))
    const firstTurn = tokenizer.counted.filter((text) => text.length >= 64).length
    expect(firstTurn).toBe(1 + 10) // the system block with the tools, then 10 messages

    tokenizer.counted.length = 0
    const next = [...conversation(5), { role: 'user' as const, content: long('new question') }]
    expect(counter.count(renderQwen2Prompt(next, tools))).toBe(countTemplateTokens(renderQwen2Prompt(next, tools), o200kTokenizer))
    // Only the new message is tokenized; short runs ("\n", "assistant\n") are not worth caching.
    expect(tokenizer.counted.filter((text) => text.length >= 64)).toEqual([`user\n${long('new question')}`])
  })

  it('finds a history again in the fresh strings of the next request, and counts a changed message anew', () => {
    const tokenizer = spiedTokenizer()
    const counter = new PromptCounter(tokenizer)
    const first = conversation(4)
    counter.count(renderQwen2Prompt(first, tools))
    tokenizer.counted.length = 0
    // Each request parses its own body: equal texts in other string objects.
    const again = JSON.parse(JSON.stringify(first)) as ChatMessage[]
    const againTools = JSON.parse(JSON.stringify(tools)) as ChatTool[]
    expect(counter.count(renderQwen2Prompt(again, againTools))).toBe(countTemplateTokens(renderQwen2Prompt(first, tools), o200kTokenizer))
    expect(tokenizer.counted.filter((text) => text.length >= 64)).toEqual([])
    // One character changed in an old message: that message is counted again, and right.
    const changed = again.map((message, i) => (i === 3 ? { ...message, content: String(message.content).replace('fairly', 'fairlY') } : message))
    expect(counter.count(renderQwen2Prompt(changed, againTools))).toBe(countTemplateTokens(renderQwen2Prompt(changed, tools), o200kTokenizer))
    expect(tokenizer.counted.filter((text) => text.length >= 64)).toEqual([`${changed[3]!.role}\n${String(changed[3]!.content)}`])
  })

  it('bounds its memory, dropping the least recently used runs first', () => {
    const tokenizer = spiedTokenizer()
    const counter = new PromptCounter(tokenizer, 2_000, 0)
    const kept = renderQwen2Prompt([{ role: 'user', content: long('kept') }], [])
    counter.count(kept)
    for (let i = 0; i < 40; i++) {
      counter.count(renderQwen2Prompt([{ role: 'user', content: long(`filler ${i}`) }], []))
      counter.count(kept) // used again and again: stays
      expect(counter.size.chars).toBeLessThanOrEqual(2_000)
    }
    tokenizer.counted.length = 0
    counter.count(kept)
    counter.count(renderQwen2Prompt([{ role: 'user', content: long('filler 0') }], []))
    expect(tokenizer.counted.filter((text) => text.length >= 64)).toEqual([`user\n${long('filler 0')}`])
  })

  it('does not let one huge prompt push out everybody else', () => {
    const counter = new PromptCounter(o200kTokenizer, 2_000, 0)
    counter.count(renderQwen2Prompt([{ role: 'user', content: 'x'.repeat(600) }], []))
    // The default system block and the two short runs (the newline after it, the reply's opening).
    expect(counter.size.runs).toBe(3)
    expect(counter.size.chars).toBeLessThan(600)
  })

  it('bounds the count without tokenizing what it has not seen, and counts it only when asked', () => {
    const tokenizer = spiedTokenizer()
    const counter = new PromptCounter(tokenizer, DEFAULT_CACHE_CHARS, 0)
    const pieces = renderQwen2Prompt(conversation(2), [])
    const measure = counter.measure(pieces)
    expect(tokenizer.counted).toEqual([])
    const exact = countTemplateTokens(pieces, o200kTokenizer)
    expect(measure.upperBound).toBeGreaterThanOrEqual(exact)
    expect(measure.lowerBound).toBeLessThanOrEqual(exact)
    expect(measure.exact()).toBe(exact)
    const calls = tokenizer.counted.length
    expect(measure.exact()).toBe(exact)
    expect(tokenizer.counted).toHaveLength(calls)
    // Once cached, short runs too, the bounds are the exact count and nothing is tokenized again.
    const again = counter.measure(pieces)
    expect([again.lowerBound, again.upperBound, again.uncountedChars]).toEqual([exact, exact, 0])
    expect(again.exact()).toBe(exact)
    expect(tokenizer.counted).toHaveLength(calls)
  })

  it('keeps the bounds of the runs it measured but did not count, until it counts them', () => {
    let bounded = 0
    const tokenizer = spiedTokenizer()
    const bounds = tokenizer.bounds!
    const counter = new PromptCounter({ ...tokenizer, bounds: (text) => (bounded++, bounds(text)) }, DEFAULT_CACHE_CHARS, 0)
    const pieces = renderQwen2Prompt([{ role: 'user', content: 'y'.repeat(300) }], [])
    const first = counter.measure(pieces)
    const measured = bounded
    expect(measured).toBeGreaterThan(1)
    const second = counter.measure(pieces)
    expect([second.lowerBound, second.upperBound, second.uncountedChars]).toEqual([first.lowerBound, first.upperBound, first.uncountedChars])
    // None measured again: every run's bounds were kept.
    expect(bounded).toBe(measured)
    const exact = countTemplateTokens(pieces, o200kTokenizer)
    expect(second.exact()).toBe(exact)
    expect(tokenizer.counted.length).toBeGreaterThan(0)
    const counted = counter.measure(pieces)
    expect([counted.lowerBound, counted.upperBound, counted.uncountedChars]).toEqual([exact, exact, 0])
  })

  it('measures a prompt shorter than SHORTEST_CACHED_PROMPT_CHARS without the cache, and exactly', () => {
    const tokenizer = spiedTokenizer()
    const counter = new PromptCounter(tokenizer)
    const pieces = renderQwen2Prompt([{ role: 'user', content: 'z'.repeat(SHORTEST_CACHED_PROMPT_CHARS / 2) }], [])
    const exact = countTemplateTokens(pieces, o200kTokenizer)
    for (let turn = 0; turn < 2; turn++) {
      const measure = counter.measure(pieces)
      expect(measure.lowerBound).toBeLessThanOrEqual(exact)
      expect(measure.upperBound).toBeGreaterThanOrEqual(exact)
      expect(measure.exact()).toBe(exact)
    }
    // Counted on each turn, and nothing kept.
    expect(tokenizer.counted.filter((text) => text.includes('zzz'))).toHaveLength(2)
    expect(counter.size.runs).toBe(0)
    // Past the threshold, the same conversation is cached.
    const longer = renderQwen2Prompt([{ role: 'user', content: 'z'.repeat(SHORTEST_CACHED_PROMPT_CHARS) }], [])
    counter.count(longer)
    expect(counter.size.runs).toBeGreaterThan(0)
  })

  it("measures only an extended conversation's new messages, taking the runs measured before as they were", () => {
    const tokenizer = spiedTokenizer()
    // A cache that keeps nothing: what is not tokenized again comes from the measured beginning.
    const counter = new PromptCounter(tokenizer, 4, 0)
    // Messages the gateway remembered: frozen, the same objects on the next turn.
    const first = deepFreeze(conversation(3))
    expect(counter.measureConversation(first, tools).exact()).toBe(countTemplateTokens(renderQwen2Prompt(first, tools), o200kTokenizer))
    tokenizer.counted.length = 0
    // The next turn: the same message objects, one more after them.
    const next = [...first, deepFreeze({ role: 'user' as const, content: long('new question') })]
    const measure = counter.measureConversation(next, [...tools])
    expect(measure.exact()).toBe(countTemplateTokens(renderQwen2Prompt(next, tools), o200kTokenizer))
    expect(tokenizer.counted.filter((text) => text.length >= 64)).toEqual([`user\n${long('new question')}`])
    // Equal messages that are other objects (a body parsed anew) are measured whole.
    tokenizer.counted.length = 0
    const copied = JSON.parse(JSON.stringify(next)) as ChatMessage[]
    expect(counter.measureConversation(copied, tools).exact()).toBe(measure.exact())
    expect(tokenizer.counted.filter((text) => text.length >= 64)).toHaveLength(1 + 7)
    // Nor is a beginning kept by a message that is not frozen (the request's own object, which no
    // later request sends again): the turn after the copy is measured whole too.
    tokenizer.counted.length = 0
    const afterCopy = [...copied, { role: 'assistant' as const, content: long('answer 3') }]
    expect(counter.measureConversation(afterCopy, tools).exact()).toBe(countTemplateTokens(renderQwen2Prompt(afterCopy, tools), o200kTokenizer))
    expect(tokenizer.counted.filter((text) => text.length >= 64)).toHaveLength(1 + 8)
  })

  it("keeps the conversations it measured within a size, however small each one's last message", () => {
    const counter = new PromptCounter(o200kTokenizer)
    // Conversations of ~600 K characters, each ending with a short message: twenty are past the size.
    const conversationOf = (n: number): ChatMessage[] =>
      deepFreeze(
        Array.from({ length: 11 }, (_, i) => ({ role: i % 2 === 0 ? ('user' as const) : ('assistant' as const), content: i === 10 ? `last ${n}` : `conversation ${n}, message ${i}. `.repeat(2_000) })),
      )
    for (let n = 0; n < 20; n++) {
      counter.measureConversation(conversationOf(n), tools)
      expect(counter.size.conversationChars).toBeLessThanOrEqual(ENTRIES_SIZE_KEPT)
    }
    expect(counter.size.conversationChars).toBeGreaterThan(ENTRIES_SIZE_KEPT - 1_000_000)
  })

  it('does not take a beginning that ends between two tool messages, nor one with other tools', () => {
    const tokenizer = spiedTokenizer()
    const counter = new PromptCounter(tokenizer, 4, 0)
    const call = { id: 'c', type: 'function' as const, function: { name: 'lookup', arguments: '{"q": 1}' } }
    // Remembered messages, as the gateway hands them: frozen.
    const first: ChatMessage[] = deepFreeze([
      { role: 'user', content: long('go') },
      { role: 'assistant', content: null, tool_calls: [call, { ...call, id: 'd' }] },
      { role: 'tool', content: long('result 1'), tool_call_id: 'c' },
    ])
    counter.measureConversation(first, tools).exact()
    // The second result joins the first's turn: the first's run did not end where the beginning did.
    const next: ChatMessage[] = [...first, deepFreeze({ role: 'tool', content: long('result 2'), tool_call_id: 'd' })]
    expect(counter.measureConversation(next, tools).exact()).toBe(countTemplateTokens(renderQwen2Prompt(next, tools), o200kTokenizer))
    const otherTools: ChatTool[] = [{ type: 'function', function: { name: 'search', description: long('other tool'), parameters: { type: 'object' } } }]
    const answered: ChatMessage[] = [...next, deepFreeze({ role: 'assistant', content: long('done') })]
    counter.measureConversation(answered, tools).exact()
    const asked = [...answered, deepFreeze({ role: 'user' as const, content: long('more') })]
    expect(counter.measureConversation(asked, otherTools).exact()).toBe(countTemplateTokens(renderQwen2Prompt(asked, otherTools), o200kTokenizer))
    // The same last message after other messages is another conversation.
    const elsewhere: ChatMessage[] = [{ role: 'user', content: long('elsewhere') }, ...asked.slice(1)]
    expect(counter.measureConversation(elsewhere, otherTools).exact()).toBe(countTemplateTokens(renderQwen2Prompt(elsewhere, otherTools), o200kTokenizer))
  })

  it('counts a conversation turn after turn as the whole rendering counts, however it grows or branches', () => {
    const role = fc.constantFrom<ChatMessage['role']>('system', 'user', 'assistant', 'tool')
    const text = fc.string({ unit: fc.constantFrom('a', 'b', ' ', '\n', 'é', '日', '😀', '<', '{', '"'), maxLength: 40 })
    const message = fc.record({ role, content: fc.option(text, { nil: null }), call: fc.option(text, { nil: undefined }) }).map(({ role: r, content, call }): ChatMessage =>
      r === 'assistant' && call !== undefined
        ? { role: r, content, tool_calls: [{ id: 'x', type: 'function', function: { name: 'f', arguments: call } }] }
        : { role: r, content },
    )
    // `copy`: the earlier messages sent as new objects of the same value (a translated conversation
    // makes some anew each turn), `edit`: one of them changed, the last message still the same object.
    const step = fc.record({
      drop: fc.nat({ max: 2 }),
      add: fc.array(message, { maxLength: 3 }),
      toolsChange: fc.boolean(),
      count: fc.boolean(),
      copy: fc.boolean(),
      edit: fc.option(fc.record({ at: fc.nat(), content: text }), { nil: undefined }),
    })
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 5 }), fc.array(step, { minLength: 1, maxLength: 6 }), fc.constantFrom(4, DEFAULT_CACHE_CHARS), (start, steps, cacheChars) => {
        const counter = new PromptCounter(o200kTokenizer, cacheChars, 0)
        // Sent messages are remembered (frozen) ones; the copies below are made anew, as a translation makes some.
        let messages = start.map((m) => deepFreeze(structuredClone(m)))
        let withTools: ChatTool[] = []
        for (const { drop, add, toolsChange, count, copy, edit } of steps) {
          messages = [...messages.slice(0, Math.max(0, messages.length - drop)), ...add.map((m) => deepFreeze(structuredClone(m)))]
          if (copy || edit !== undefined) {
            const earlier = messages.slice(0, -1).map((m) => structuredClone(m))
            const edited = edit === undefined ? undefined : earlier[edit.at % Math.max(1, earlier.length)]
            if (edited !== undefined && edit !== undefined) {
              if (edited.tool_calls !== undefined) edited.tool_calls[0]!.function.arguments = edit.content
              else edited.content = edit.content
            }
            messages = [...earlier, ...messages.slice(-1)]
          }
          if (toolsChange) withTools = withTools.length === 0 ? tools : []
          const expected = countTemplateTokens(renderQwen2Prompt(messages, withTools), o200kTokenizer)
          const measure = counter.measureConversation(messages, withTools)
          expect(measure.lowerBound).toBeLessThanOrEqual(expected)
          expect(measure.upperBound).toBeGreaterThanOrEqual(expected)
          if (count) expect(measure.exact()).toBe(expected)
        }
      }),
      { numRuns: 300 },
    )
  })

  it('has no bound when the tokenizer has none', () => {
    const counter = new PromptCounter(spiedTokenizer(false))
    expect(counter.measure(renderQwen2Prompt(conversation(1), [])).upperBound).toBeUndefined()
  })

  it('keeps one counter, with its cache, per tokenizer', () => {
    expect(promptCounterFor(o200kTokenizer)).toBe(promptCounterFor(o200kTokenizer))
    expect(promptCounterFor(spiedTokenizer())).not.toBe(promptCounterFor(o200kTokenizer))
  })
})
