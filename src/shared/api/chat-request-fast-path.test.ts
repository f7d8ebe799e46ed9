import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chatCompletionRequestSchema, normalizeChatRequest } from './chat-request'
import { parseSimpleChatRequest } from './chat-request-fast-path'

/**
 * The hand-written check for simple requests must never disagree with the schema: whenever it
 * answers, the schema accepts the same body and the gateway sees the same request. And it must
 * actually answer for the requests it exists for.
 */

const nullish = <T>(arb: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: arb, weight: 3 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.constant(undefined), weight: 1 })
const oddValue = fc.oneof(fc.anything(), fc.double(), fc.integer({ min: -3, max: 3 }), fc.constant(2 ** 60), fc.constant(Number.NaN), fc.constant([]), fc.constant({}))
/** Mostly what a client would send, now and then anything at all: the boundaries are where they disagree. */
const mostly = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: arb, weight: 12 }, { arbitrary: oddValue, weight: 1 })

const message = fc.record(
  {
    role: mostly(fc.oneof({ arbitrary: fc.constantFrom('system', 'developer', 'user', 'assistant'), weight: 8 }, fc.constantFrom('tool', 'function', 'User', ''))),
    content: mostly(fc.oneof({ arbitrary: fc.string(), weight: 8 }, fc.constant(null), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() })))),
    tool_calls: fc.oneof({ arbitrary: fc.constant(null), weight: 8 }, oddValue),
    tool_call_id: fc.oneof({ arbitrary: fc.constant(null), weight: 8 }, fc.string(), oddValue),
    name: fc.string(),
  },
  { requiredKeys: ['role', 'content'], noNullPrototype: true },
)

const body = fc.record(
  {
    model: nullish(mostly(fc.string())),
    messages: mostly(fc.array(message, { minLength: 0, maxLength: 3 })),
    stream: nullish(mostly(fc.boolean())),
    stream_options: nullish(mostly(fc.record({ include_usage: nullish(mostly(fc.boolean())), other: fc.string() }, { requiredKeys: [] }))),
    max_tokens: nullish(mostly(fc.integer({ min: -2, max: 100_000 }))),
    max_completion_tokens: nullish(mostly(fc.integer({ min: -2, max: 100_000 }))),
    user: nullish(mostly(fc.string())),
    tools: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, fc.constant(null), fc.constant([]), oddValue),
    tool_choice: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, fc.constant(null), fc.constant('auto'), oddValue),
    parallel_tool_calls: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, fc.constant(null), fc.boolean(), oddValue),
    temperature: fc.double(),
  },
  { requiredKeys: [] },
)

describe('parseSimpleChatRequest', () => {
  it('agrees with the schema whenever it answers', () => {
    let answered = 0
    fc.assert(
      fc.property(fc.oneof({ arbitrary: body, weight: 4 }, fc.anything()), (json) => {
        const simple = parseSimpleChatRequest(json)
        if (simple === undefined) return
        answered++
        const schema = chatCompletionRequestSchema.safeParse(json)
        expect(schema.success).toBe(true)
        if (schema.success) expect(normalizeChatRequest(simple, json)).toEqual(normalizeChatRequest(schema.data, json))
      }),
      { numRuns: 5_000 },
    )
    // The generator must reach the fast path often, or the agreement above proves little.
    expect(answered).toBeGreaterThan(100)
  })

  it('answers for plain text conversations, as IDE clients send them', () => {
    const simpleMessage = fc.record({ role: fc.constantFrom('system', 'developer', 'user', 'assistant'), content: fc.string() })
    const simpleBody = fc.record(
      {
        model: nullish(fc.string()),
        messages: fc.array(simpleMessage, { minLength: 1, maxLength: 6 }),
        stream: nullish(fc.boolean()),
        stream_options: nullish(fc.record({ include_usage: nullish(fc.boolean()) }, { requiredKeys: [] })),
        max_tokens: nullish(fc.integer({ min: 1 })),
        user: nullish(fc.string()),
        tools: fc.constant(null),
        temperature: fc.double(),
      },
      { requiredKeys: ['messages'] },
    )
    fc.assert(
      fc.property(simpleBody, (json) => {
        const simple = parseSimpleChatRequest(json)
        expect(simple).toBeDefined()
        const schema = chatCompletionRequestSchema.safeParse(json)
        if (!schema.success) throw new Error('the schema refused a simple body')
        expect(normalizeChatRequest(simple!, json)).toEqual(normalizeChatRequest(schema.data, json))
      }),
      { numRuns: 2_000 },
    )
  })

  it.each<[string, unknown]>([
    ['tools', { messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f' } }] }],
    ['a tool message', { messages: [{ role: 'tool', content: 'x', tool_call_id: 'c' }] }],
    ['content parts', { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }],
    ['no messages', { messages: [] }],
    ['a bad max_tokens', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 0 }],
  ])('leaves the schema to decide on %s', (_name, json) => {
    expect(parseSimpleChatRequest(json)).toBeUndefined()
  })
})
