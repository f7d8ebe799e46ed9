import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { responsesRequestSchema } from './responses-request'
import { simpleInputItem } from './responses-item-fast-path'
import { historyArbitraries } from './test-support/history-arbitraries'

const { responsesItem, odd } = historyArbitraries(64)
const withExtras = fc.oneof(
  responsesItem,
  responsesItem.map((item) => ({ ...item, extra: 1 })),
  responsesItem.map((item) => ({ type: 'message', ...item })),
  fc.record({ type: fc.constantFrom('message', 'function_call', 'function_call_output', 'reasoning', undefined, null), role: odd, content: odd, call_id: odd, name: odd, arguments: odd, output: odd }, { requiredKeys: [] }),
  fc.record({ role: fc.constant('user'), content: fc.array(fc.oneof(odd, fc.record({ type: fc.constantFrom('text', 'refusal', 'input_text'), text: odd, refusal: odd })), { maxLength: 3 }) }),
  odd,
)

describe('simpleInputItem', () => {
  it('answers only for valid items, with exactly what the schema gives, keys in its order', () => {
    let answered = 0
    fc.assert(
      fc.property(withExtras, (item) => {
        const simple = simpleInputItem(item)
        if (simple === undefined) return
        answered++
        const whole = responsesRequestSchema.safeParse({ input: [item] })
        expect(whole.success).toBe(true)
        const expected = whole.data!.input[0]
        expect(simple).toStrictEqual(expected)
        expect(JSON.stringify(simple)).toBe(JSON.stringify(expected))
      }),
      { numRuns: 3000 },
    )
    expect(answered).toBeGreaterThan(500)
  })
})
