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
  odd,
)

describe('simpleMessagesMessage', () => {
  it('answers only for valid messages, with exactly what the schema gives, keys in its order', () => {
    let answered = 0
    fc.assert(
      fc.property(withExtras, (message) => {
        const simple = simpleMessagesMessage(message)
        if (simple === undefined) return
        answered++
        const whole = messagesRequestSchema.safeParse({ model: 'm', max_tokens: 1, messages: [message] })
        expect(whole.success).toBe(true)
        const expected = whole.data!.messages[0]
        expect(simple).toStrictEqual(expected)
        expect(JSON.stringify(simple)).toBe(JSON.stringify(expected))
      }),
      { numRuns: 3000 },
    )
    expect(answered).toBeGreaterThan(500)
  })

  it('leaves tool calls past the limit to the schema', () => {
    const call = { type: 'tool_use', id: 'a', name: 'b', input: {} }
    expect(simpleMessagesMessage({ role: 'assistant', content: Array.from({ length: 129 }, () => call) })).toBeUndefined()
  })
})
