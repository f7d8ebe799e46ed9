import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { simpleMessagesFields } from './messages-fields-fast-path'
import { countTokensRequestRest, messagesRequestRest } from './messages-request'

const odd = fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 3 }), fc.double(), fc.constant([]), fc.constant({}), fc.string({ maxLength: 3 }), fc.boolean())
const mostly = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: arb, weight: 10 }, { arbitrary: odd, weight: 1 })
const textBlock = fc.record({ type: mostly(fc.constant('text')), text: mostly(fc.string({ maxLength: 4 })), cache_control: fc.oneof(fc.constant({ type: 'ephemeral' }), odd) }, { requiredKeys: ['type', 'text'] })

const body = fc.record(
  {
    model: mostly(fc.oneof(fc.constant('claude'), fc.constant(''))),
    system: mostly(fc.oneof(fc.string({ maxLength: 4 }), fc.array(textBlock, { maxLength: 2 }))),
    messages: mostly(fc.array(fc.record({ role: fc.constant('user'), content: fc.string({ maxLength: 3 }) }), { maxLength: 2 })),
    tools: mostly(fc.array(fc.record({ name: fc.constant('t') }), { maxLength: 2 })),
    tool_choice: mostly(
      fc.record(
        { type: mostly(fc.constantFrom('auto', 'any', 'tool', 'none')), name: mostly(fc.constant('t')), disable_parallel_tool_use: mostly(fc.boolean()), extra: fc.constant(1) },
        { requiredKeys: ['type'] },
      ),
    ),
    thinking: mostly(fc.record({ type: mostly(fc.constantFrom('enabled', 'disabled', 'adaptive', 'between_tools')), budget_tokens: mostly(fc.integer({ min: -1, max: 5000 })) }, { requiredKeys: ['type'] })),
    max_tokens: mostly(fc.integer({ min: -1, max: 100_000 })),
    stream: mostly(fc.boolean()),
    stop_sequences: mostly(fc.array(mostly(fc.string({ maxLength: 3 })), { maxLength: 2 })),
    temperature: mostly(fc.double({ min: -0.5, max: 1.5, noNaN: true })),
    top_p: mostly(fc.double({ min: -0.5, max: 1.5, noNaN: true })),
    top_k: mostly(fc.integer({ min: -1, max: 50 })),
    metadata: mostly(fc.record({ user_id: mostly(fc.string({ maxLength: 3 })), other: fc.constant(1) }, { requiredKeys: [] })),
    service_tier: fc.constant('auto'),
  },
  { requiredKeys: ['model', 'messages'] },
)

describe('simpleMessagesFields', () => {
  it('answers only for valid bodies, with exactly what the schema of the other fields gives, keys in its order', () => {
    let answered = 0
    fc.assert(
      fc.property(body, fc.boolean(), (json, request) => {
        const simple = simpleMessagesFields(json, request)
        if (simple === undefined) return
        answered++
        const whole = (request ? messagesRequestRest : countTokensRequestRest).safeParse(json)
        expect(whole.success).toBe(true)
        expect(simple).toStrictEqual(whole.data)
        expect(JSON.stringify(simple)).toBe(JSON.stringify(whole.data))
      }),
      { numRuns: 4000 },
    )
    // A fair share answered by hand, with room for the runs' randomness (a floor of 300 failed once, at 297).
    expect(answered).toBeGreaterThan(200)
  })

  it('leaves what is not an object, or has no messages, to the schema', () => {
    for (const json of [null, [], 'x', { model: 'm', max_tokens: 1 }, { model: 'm', max_tokens: 1, messages: [] }]) expect(simpleMessagesFields(json, true)).toBeUndefined()
  })
})
