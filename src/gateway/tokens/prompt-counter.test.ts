import { describe, expect, it } from 'vitest'
import type { ChatMessage, ChatTool } from '../../shared/api/chat-request'
import { countTemplateTokens, renderQwen2Prompt } from './chat-template'
import { o200kTokenizer } from './gpt-tokenizer'
import { DEFAULT_CACHE_CHARS, PromptCounter, promptCounterFor, SHORTEST_CACHED_PROMPT_CHARS } from './prompt-counter'
import type { Tokenizer } from './tokenizer'

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

  it('has no bound when the tokenizer has none', () => {
    const counter = new PromptCounter(spiedTokenizer(false))
    expect(counter.measure(renderQwen2Prompt(conversation(1), [])).upperBound).toBeUndefined()
  })

  it('keeps one counter, with its cache, per tokenizer', () => {
    expect(promptCounterFor(o200kTokenizer)).toBe(promptCounterFor(o200kTokenizer))
    expect(promptCounterFor(spiedTokenizer())).not.toBe(promptCounterFor(o200kTokenizer))
  })
})
