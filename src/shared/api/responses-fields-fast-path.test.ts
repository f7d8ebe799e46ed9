import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { simpleResponsesFields } from './responses-fields-fast-path'
import { responsesRequestRest } from './responses-request'

const odd = fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 3 }), fc.double(), fc.constant([]), fc.constant({}), fc.string({ maxLength: 3 }), fc.boolean())
const mostly = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: arb, weight: 10 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: odd, weight: 1 })
const word = fc.string({ maxLength: 4 })

const body = fc.record(
  {
    model: mostly(word),
    input: mostly(fc.oneof(word, fc.array(fc.record({ role: fc.constant('user'), content: word }), { maxLength: 2 }))),
    instructions: mostly(word),
    stream: mostly(fc.boolean()),
    store: mostly(fc.boolean()),
    max_output_tokens: mostly(fc.integer({ min: -1, max: 100_000 })),
    tools: mostly(fc.array(fc.record({ type: fc.constant('function'), name: fc.constant('t') }), { maxLength: 2 })),
    tool_choice: mostly(
      fc.oneof(
        fc.constantFrom('auto', 'none', 'required', 'any'),
        fc.record({ type: mostly(fc.constant('function')), name: mostly(word), extra: fc.constant(1) }, { requiredKeys: ['type'] }),
        fc.constant({ type: 'allowed_tools', mode: 'auto', tools: [{ type: 'function', name: 't' }] }),
      ),
    ),
    parallel_tool_calls: mostly(fc.boolean()),
    previous_response_id: mostly(word),
    conversation: mostly(word),
    prompt: mostly(fc.record({ id: word })),
    user: mostly(word),
    prompt_cache_key: mostly(word),
    temperature: mostly(fc.double({ noNaN: true, noDefaultInfinity: true })),
    top_p: mostly(fc.double({ noNaN: true, noDefaultInfinity: true })),
    text: mostly(
      fc.record(
        { format: mostly(fc.oneof(fc.record({ type: fc.constantFrom('text', 'json_object', 'json_schema', 'other'), extra: fc.constant(1) }), fc.constant({ type: 'json_schema', schema: {} }))), verbosity: fc.constant('low') },
        { requiredKeys: [] },
      ),
    ),
    reasoning: mostly(fc.record({ effort: mostly(word), summary: mostly(word), other: fc.constant(1) }, { requiredKeys: [] })),
    include: fc.constant(['reasoning.encrypted_content']),
  },
  { requiredKeys: ['input'] },
)

describe('simpleResponsesFields', () => {
  it('answers only for valid bodies, with exactly what the schema of the other fields gives, keys in its order', () => {
    let answered = 0
    fc.assert(
      fc.property(body, (json) => {
        const simple = simpleResponsesFields(json)
        if (simple === undefined) return
        answered++
        const whole = responsesRequestRest.safeParse(json)
        expect(whole.success).toBe(true)
        expect(simple).toStrictEqual(whole.data)
        expect(Object.keys(simple)).toEqual(Object.keys(whole.data!))
      }),
      { numRuns: 4000 },
    )
    expect(answered).toBeGreaterThan(300)
  })

  it('leaves what is not an object, or has no input, to the schema', () => {
    for (const json of [null, [], 'x', { model: 'm' }, { input: 3 }]) expect(simpleResponsesFields(json)).toBeUndefined()
  })
})
