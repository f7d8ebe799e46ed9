import fc from 'fast-check'

/**
 * Random history elements of the Messages and Responses APIs, mostly valid and sometimes not, in
 * the shapes agents send (text, tool calls and results) and the others, with texts short or long
 * (past `longFrom` characters, as the gateway's remembered elements are).
 */
export function historyArbitraries(longFrom: number) {
  const longText = (seed: string) => `${seed} ${'é\n"x\\'.repeat(longFrom / 4)}`
  const someText = fc.oneof({ arbitrary: fc.string({ maxLength: 12 }), weight: 3 }, fc.string({ maxLength: 12 }).map(longText))
  const odd = fc.oneof(fc.constant(null), fc.integer(), fc.constant([]), fc.constant({}), fc.string({ maxLength: 4 }))
  const mostly = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ arbitrary: arb, weight: 15 }, { arbitrary: odd, weight: 1 })
  const bigSchema = fc.oneof(fc.constant({ type: 'object' }), someText.map((description) => ({ type: 'object', properties: { path: { type: 'string', description } } })))

  const messagesBlock = fc.oneof(
    { arbitrary: fc.record({ type: fc.constant('text'), text: mostly(someText) }), weight: 4 },
    { arbitrary: fc.record({ type: fc.constant('tool_use'), id: mostly(fc.string({ maxLength: 6 })), name: fc.constantFrom('read', 'write'), input: fc.jsonValue({ maxDepth: 2 }) }), weight: 3 },
    {
      arbitrary: fc.record(
        {
          type: fc.constant('tool_result'),
          tool_use_id: mostly(fc.string({ maxLength: 6 })),
          content: fc.oneof(someText, fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text: someText }), fc.constant({ type: 'image', source: { data: 'x' } })), { maxLength: 2 })),
          is_error: fc.boolean(),
        },
        { requiredKeys: ['type', 'tool_use_id'] },
      ),
      weight: 3,
    },
    fc.constant({ type: 'image', source: { type: 'base64', data: 'AAAA' } }),
    fc.record({ type: fc.constant('thinking'), thinking: someText }),
    fc.record({ type: fc.constantFrom('video', 'server_tool_use'), x: fc.string({ maxLength: 3 }) }),
  )
  const messagesMessage = fc.record({
    role: fc.oneof({ arbitrary: fc.constantFrom('user', 'assistant'), weight: 12 }, fc.constantFrom('system', 'tool')),
    content: fc.oneof(someText, fc.array(messagesBlock, { maxLength: 3 }), odd),
  })
  const messagesTool = fc.record({ name: mostly(fc.constantFrom('read', 'write', 'mcp__a__b')), description: someText, input_schema: mostly(bigSchema) }, { requiredKeys: ['name', 'input_schema'] })

  const responsesItem = fc.oneof(
    { arbitrary: fc.record({ role: mostly(fc.constantFrom('user', 'assistant', 'developer', 'system')), content: fc.oneof(someText, fc.array(fc.record({ type: fc.constantFrom('input_text', 'output_text', 'input_image'), text: someText }), { maxLength: 2 })) }), weight: 4 },
    { arbitrary: fc.record({ type: fc.constant('function_call'), call_id: mostly(fc.string({ maxLength: 6 })), name: fc.constantFrom('read', 'write'), arguments: someText }), weight: 3 },
    { arbitrary: fc.record({ type: fc.constant('function_call_output'), call_id: fc.string({ maxLength: 6 }), output: mostly(someText) }), weight: 3 },
    fc.record({ type: fc.constant('reasoning'), summary: fc.constant([]) }),
    fc.record({ type: fc.constant('item_reference'), id: fc.constantFrom('rs_1', 'msg_1') }),
    fc.record({ type: fc.constant('web_search_call'), id: fc.string({ maxLength: 3 }) }),
  )
  const responsesTool = fc.oneof(
    { arbitrary: fc.record({ type: fc.constant('function'), name: mostly(fc.constantFrom('read', 'write')), description: someText, parameters: mostly(bigSchema) }, { requiredKeys: ['type', 'name'] }), weight: 4 },
    fc.record({ type: fc.constantFrom('web_search', 'local_shell') }),
  )
  return { longText, messagesMessage, messagesTool, responsesItem, responsesTool, odd }
}
