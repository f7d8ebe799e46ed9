import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { chatCompletionRequestSchema, normalizeChatRequest } from './chat-request'
import { parseSimpleChatRequest } from './chat-request-fast-path'
import { deepFreeze, frozenThroughout } from './element-results'

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

const toolCall = fc.record(
  {
    id: mostly(fc.string()),
    type: fc.oneof({ arbitrary: fc.constant('function'), weight: 6 }, fc.constant(null), fc.constant(undefined), oddValue),
    function: mostly(fc.record({ name: mostly(fc.string()), arguments: mostly(fc.json()) }, { requiredKeys: ['name', 'arguments'] })),
    extra: fc.string(),
  },
  { requiredKeys: ['id', 'function'] },
)

const message = fc.record(
  {
    role: mostly(fc.oneof({ arbitrary: fc.constantFrom('system', 'developer', 'user', 'assistant', 'tool'), weight: 8 }, fc.constantFrom('function', 'User', ''))),
    content: mostly(fc.oneof({ arbitrary: fc.string(), weight: 8 }, fc.constant(null), fc.array(fc.record({ type: fc.constant('text'), text: fc.string() })))),
    tool_calls: fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.array(toolCall, { maxLength: 3 }), weight: 3 }, oddValue),
    tool_call_id: fc.oneof({ arbitrary: fc.constant(null), weight: 6 }, { arbitrary: fc.string(), weight: 3 }, oddValue),
    name: fc.string(),
  },
  { requiredKeys: ['role'], noNullPrototype: true },
)

const toolName = fc.oneof({ arbitrary: fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/), weight: 8 }, fc.string())
const tool = fc.record(
  {
    type: mostly(fc.constant('function')),
    function: mostly(
      fc.record(
        {
          name: mostly(toolName),
          description: nullish(mostly(fc.string())),
          parameters: nullish(mostly(fc.dictionary(fc.string(), fc.jsonValue(), { maxKeys: 3 }))),
          strict: nullish(mostly(fc.boolean())),
          extra: fc.string(),
        },
        { requiredKeys: ['name'] },
      ),
    ),
  },
  { requiredKeys: ['type', 'function'] },
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
    tools: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, fc.constant(null), fc.constant([]), { arbitrary: fc.array(tool, { maxLength: 3 }), weight: 4 }, oddValue),
    tool_choice: fc.oneof(
      { arbitrary: fc.constant(undefined), weight: 4 },
      fc.constant(null),
      fc.constantFrom('auto', 'none', 'required', 'any'),
      fc.record({ type: fc.constant('function'), function: fc.record({ name: toolName }) }),
      oddValue,
    ),
    parallel_tool_calls: fc.oneof({ arbitrary: fc.constant(undefined), weight: 4 }, fc.constant(null), fc.boolean(), oddValue),
    temperature: fc.double(),
  },
  { requiredKeys: [] },
)

describe('parseSimpleChatRequest', () => {
  it('agrees with the schema whenever it answers', () => {
    let answered = 0
    let agentic = 0
    fc.assert(
      fc.property(fc.oneof({ arbitrary: body, weight: 4 }, fc.anything()), (json) => {
        const simple = parseSimpleChatRequest(json)
        if (simple === undefined) return
        answered++
        if ((simple.tools?.length ?? 0) > 0 || simple.messages.some((m) => (m.tool_calls?.length ?? 0) > 0 || m.role === 'tool')) agentic++
        const schema = chatCompletionRequestSchema.safeParse(json)
        expect(schema.success).toBe(true)
        if (schema.success) expect(normalizeChatRequest(simple, json)).toEqual(normalizeChatRequest(schema.data, json))
      }),
      { numRuns: 10_000 },
    )
    // The generator must reach the fast path often, or the agreement above proves little (it
    // answered 217-287 of 10,000 runs in three tries, so this leaves a wide margin; 5,000 once gave exactly 100).
    expect(answered).toBeGreaterThan(100)
    expect(agentic).toBeGreaterThan(20)
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

  it('answers for an agent\'s turn: tools, tool calls and tool results', () => {
    const json = {
      messages: [
        { role: 'system', content: 'You are an agent.' },
        { role: 'user', content: 'Read a.ts' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] },
        { role: 'tool', tool_call_id: 'c1', content: 'export const a = 1' },
      ],
      tools: [{ type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object' } } }],
      tool_choice: 'auto',
      parallel_tool_calls: false,
    }
    const simple = parseSimpleChatRequest(json)
    expect(simple).toBeDefined()
    const schema = chatCompletionRequestSchema.parse(json)
    expect(normalizeChatRequest(simple!, json)).toEqual(normalizeChatRequest(schema, json))
  })

  it.each<[string, unknown]>([
    ['a named tool_choice', { messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f' } }], tool_choice: { type: 'function', function: { name: 'f' } } }],
    ['two tools of one name', { messages: [{ role: 'user', content: 'hi' }], tools: [{ type: 'function', function: { name: 'f' } }, { type: 'function', function: { name: 'f' } }] }],
    ['a tool message without its call id', { messages: [{ role: 'tool', content: 'x' }] }],
    ['an assistant message without content or calls', { messages: [{ role: 'assistant', content: null }] }],
    ['content parts', { messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }],
    ['no messages', { messages: [] }],
    ['a bad max_tokens', { messages: [{ role: 'user', content: 'hi' }], max_tokens: 0 }],
  ])('leaves the schema to decide on %s', (_name, json) => {
    expect(parseSimpleChatRequest(json)).toBeUndefined()
  })

  it('gives a remembered tool the same checked tool on every turn, as it checks one that may change', () => {
    const read = { type: 'function', function: { name: 'read_file', description: 'Read a file', parameters: { type: 'object', properties: { path: { type: 'string' } } } } }
    const frozen = deepFreeze(structuredClone(read))
    const body = (tool: unknown) => ({ model: 'm', messages: [{ role: 'user', content: 'hi' }], tools: [tool] })
    const first = parseSimpleChatRequest(body(frozen))?.tools?.[0]
    expect(first).toEqual(parseSimpleChatRequest(body(read))?.tools?.[0])
    expect(parseSimpleChatRequest(body(frozen))?.tools?.[0]).toBe(first)
    expect(frozenThroughout(first)).toBe(true)
    // A remembered tool that does not pass stays refused, and two of one name still are.
    expect(parseSimpleChatRequest(body(deepFreeze({ type: 'function', function: { name: 'bad name!' } })))).toBeUndefined()
    expect(parseSimpleChatRequest({ ...body(frozen), tools: [frozen, frozen] })).toBeUndefined()
  })

  it('gives a remembered message the same normalized message on every turn, as it checks one that may change', () => {
    const history = [
      { role: 'system', content: 'Be brief.' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'export {}' },
      { role: 'developer', content: 'Use tabs.' },
    ]
    const remembered = history.map((message) => deepFreeze(structuredClone(message)))
    const turn = (messages: unknown[]) => {
      const simple = parseSimpleChatRequest({ model: 'm', messages: [...messages, { role: 'user', content: 'next' }] })
      if (simple === undefined) throw new Error('the fast path did not answer')
      return normalizeChatRequest(simple).messages
    }
    const first = turn(remembered)
    expect(first).toEqual(turn(history))
    const second = turn(remembered)
    // The same objects for the remembered messages (a developer message is made a system one each time); the new one is new.
    for (const i of [0, 1, 2]) expect(second[i]).toBe(first[i])
    expect(second[3]).toEqual({ role: 'system', content: 'Use tabs.' })
    expect(second[4]).not.toBe(first[4])
    expect(frozenThroughout(first[1])).toBe(true)
    // A remembered message that does not pass stays refused.
    expect(parseSimpleChatRequest({ model: 'm', messages: [deepFreeze({ role: 'tool', content: 'no call id' })] })).toBeUndefined()
  })
})
