import type { FakeBehavior } from './behavior'

/**
 * What a model server that speaks the Responses API itself (vLLM, LM Studio) answers to
 * POST /v1/responses, for the fake model server: the same reply its chat completions would give
 * (`deltas`, or `toolCallPieces`, and `usage`), as a response object or as its stream of named
 * events. Written from the API's documentation, apart from the gateway's own builder, so that a
 * test of native forwarding has a second witness.
 */
export interface FakeResponsesReply {
  /** `event: …\ndata: …\n\n` frames of the stream, in order. */
  frames: string[]
  /** The response object of a `stream: false` reply. */
  object: Record<string, unknown>
}

let responseCounter = 0

/**
 * The reply for `request` (its parsed body). Its response objects repeat the request's
 * `instructions` and `tools`, as vLLM's and OpenAI's do: an agent's whole system prompt comes back
 * in the JSON reply and in three events of a stream.
 */
export function fakeResponsesReply(behavior: FakeBehavior, model: string, request: Record<string, unknown>): FakeResponsesReply {
  const id = `resp_fake${++responseCounter}`
  const events: Array<Record<string, unknown>> = []
  const output: Array<Record<string, unknown>> = []
  const echoed = { instructions: request.instructions ?? null, tools: request.tools ?? [] }
  const base = { id, object: 'response', created_at: Math.floor(Date.now() / 1000), model, error: null, incomplete_details: null, ...echoed }
  const started = { ...base, status: 'in_progress', output: [] }
  events.push({ type: 'response.created', response: started }, { type: 'response.in_progress', response: started })

  if (behavior.toolCallPieces === null) {
    const itemId = `msg_fake${responseCounter}`
    const text = behavior.deltas.join('')
    events.push({ type: 'response.output_item.added', output_index: 0, item: { id: itemId, type: 'message', role: 'assistant', status: 'in_progress', content: [] } })
    events.push({ type: 'response.content_part.added', item_id: itemId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } })
    for (const delta of behavior.deltas) {
      events.push({ type: 'response.output_text.delta', item_id: itemId, output_index: 0, content_index: 0, delta, logprobs: [] })
    }
    const part = { type: 'output_text', text, annotations: [] }
    events.push({ type: 'response.output_text.done', item_id: itemId, output_index: 0, content_index: 0, text, logprobs: [] })
    events.push({ type: 'response.content_part.done', item_id: itemId, output_index: 0, content_index: 0, part })
    const item = { id: itemId, type: 'message', role: 'assistant', status: 'completed', content: [part] }
    events.push({ type: 'response.output_item.done', output_index: 0, item })
    output.push(item)
  } else {
    // One function_call item per call, in the order their first pieces came.
    const calls = new Map<number, { outputIndex: number; item: Record<string, unknown> & { arguments: string } }>()
    for (const piece of behavior.toolCallPieces) {
      let call = calls.get(piece.index)
      if (call === undefined) {
        const item = { id: `fc_fake${responseCounter}_${piece.index}`, type: 'function_call', status: 'in_progress', call_id: piece.id ?? `call_${piece.index}`, name: piece.function.name ?? '', arguments: '' }
        call = { outputIndex: calls.size, item }
        calls.set(piece.index, call)
        events.push({ type: 'response.output_item.added', output_index: call.outputIndex, item: { ...item } })
      }
      if (piece.function.arguments === '') continue
      call.item.arguments += piece.function.arguments
      events.push({ type: 'response.function_call_arguments.delta', item_id: call.item.id, output_index: call.outputIndex, delta: piece.function.arguments })
    }
    for (const { outputIndex, item } of calls.values()) {
      events.push({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: outputIndex, name: item.name, arguments: item.arguments })
      const done = { ...item, status: 'completed' }
      events.push({ type: 'response.output_item.done', output_index: outputIndex, item: done })
      output.push(done)
    }
  }

  const details = behavior.usage?.prompt_tokens_details
  const cached = typeof details === 'object' && details !== null ? (details as { cached_tokens?: unknown }).cached_tokens : undefined
  const usage =
    behavior.usage === null
      ? null
      : {
          input_tokens: behavior.usage.prompt_tokens,
          input_tokens_details: { cached_tokens: typeof cached === 'number' ? cached : 0 },
          output_tokens: behavior.usage.completion_tokens,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: behavior.usage.total_tokens,
        }
  const cut = behavior.finishReason === 'length'
  const object = {
    ...base,
    status: cut ? 'incomplete' : 'completed',
    incomplete_details: cut ? { reason: 'max_output_tokens' } : null,
    output,
    usage,
  }
  events.push({ type: cut ? 'response.incomplete' : 'response.completed', response: object })
  const frames = events.map((event, sequence) => `event: ${String(event.type)}\ndata: ${JSON.stringify({ ...event, sequence_number: sequence })}\n\n`)
  return { frames, object }
}
