import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { messagesRequestSchema } from './messages-request'
import { simpleMessagesMessage } from './messages-message-fast-path'
import { historyArbitraries } from './test-support/history-arbitraries'

const { messagesMessage, odd } = historyArbitraries(64)
const withExtras = fc.oneof(
  messagesMessage,
  messagesMessage.map((message) => ({ ...message, extra: 1 })),
  fc.record({ role: fc.constant('user'), content: fc.array(fc.record({ type: fc.constant('text'), text: fc.string(), cache_control: fc.constant({ type: 'ephemeral' }) }), { maxLength: 2 }) }),
  fc.record({ role: fc.constant('assistant'), content: fc.array(fc.record({ type: fc.constant('tool_use'), id: fc.constant('a'), name: fc.constant('b') }), { minLength: 1, maxLength: 2 }) }),
  fc.record({ role: fc.constant('user'), content: fc.array(fc.record({ type: fc.constant('tool_result'), tool_use_id: fc.constant('a'), content: fc.oneof(odd, fc.array(odd, { maxLength: 2 })) }), { maxLength: 2 }) }),
  // What Claude Code marks for its prompt cache, and failed tool results.
  fc.record({
    role: fc.constantFrom('user', 'assistant'),
    content: fc.array(
      fc.record(
        {
          type: fc.constantFrom('text', 'tool_use', 'tool_result'),
          text: fc.string({ maxLength: 3 }),
          id: fc.constant('a'),
          name: fc.constant('b'),
          input: fc.constant({}),
          tool_use_id: fc.constant('a'),
          content: fc.oneof(fc.string({ maxLength: 3 }), fc.array(fc.record({ type: fc.constant('text'), text: fc.string({ maxLength: 3 }), cache_control: odd }, { requiredKeys: ['type', 'text'] }), { maxLength: 2 })),
          is_error: fc.oneof(fc.boolean(), odd),
          cache_control: fc.oneof(fc.constant({ type: 'ephemeral' }), odd),
        },
        { requiredKeys: ['type'] },
      ),
      { maxLength: 3 },
    ),
  }),
  odd,
)

describe('simpleMessagesMessage', () => {
  it('answers only for valid messages, with exactly what the schema gives, keys in its order', () => {
    let answered = 0
    let marked = 0
    fc.assert(
      fc.property(withExtras, (message) => {
        const simple = simpleMessagesMessage(message)
        if (simple === undefined) return
        answered++
        if (JSON.stringify(simple).includes('cache_control') || JSON.stringify(simple).includes('is_error')) marked++
        const whole = messagesRequestSchema.safeParse({ model: 'm', max_tokens: 1, messages: [message] })
        expect(whole.success).toBe(true)
        const expected = whole.data!.messages[0]
        expect(simple).toStrictEqual(expected)
        expect(JSON.stringify(simple)).toBe(JSON.stringify(expected))
      }),
      { numRuns: 3000 },
    )
    expect(answered).toBeGreaterThan(500)
    expect(marked).toBeGreaterThan(50)
  })

  it('leaves tool calls past the limit to the schema', () => {
    const call = { type: 'tool_use', id: 'a', name: 'b', input: {} }
    expect(simpleMessagesMessage({ role: 'assistant', content: Array.from({ length: 129 }, () => call) })).toBeUndefined()
  })
})
