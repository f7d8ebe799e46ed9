import { describe, expect, it } from 'vitest'
import { parseResponsesRequest } from '../../../shared/api/responses-request'
import type { SequencedEvent } from '../../../shared/api/responses-response'
import { ResponseBuilder, responseUsage } from './response-builder'

const usage = responseUsage({ prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 })

function requestOf(body: Record<string, unknown>) {
  const parsed = parseResponsesRequest(body)
  if (!parsed.ok) throw new Error(parsed.issue.message)
  return parsed.request
}

function builder() {
  const events: SequencedEvent[] = []
  // Events are recorded as serialized, the way the SSE writer sends them.
  const b = new ResponseBuilder({ id: 'resp_1', createdAt: 1700000000, model: 'm' }, requestOf({ input: 'hi', tools: [{ type: 'function', name: 'f' }] }), (event) => {
    events.push(JSON.parse(JSON.stringify(event)) as SequencedEvent)
  })
  return { b, events }
}

describe('ResponseBuilder', () => {
  it('streams a text reply in the API’s order, numbering every event from 0', () => {
    const { b, events } = builder()
    b.start()
    b.content('Hel')
    b.content('lo')
    b.finish({ kind: 'completed' }, usage)
    expect(events.map((e) => e.type)).toEqual([
      'response.created',
      'response.in_progress',
      'response.output_item.added',
      'response.content_part.added',
      'response.output_text.delta',
      'response.output_text.delta',
      'response.output_text.done',
      'response.content_part.done',
      'response.output_item.done',
      'response.completed',
    ])
    expect(events.map((e) => e.sequence_number)).toEqual([...events.keys()])
    const created = events[0]
    expect(created?.type === 'response.created' && created.response).toMatchObject({ id: 'resp_1', object: 'response', status: 'in_progress', output: [], usage: null })
    const done = events[6]
    expect(done?.type === 'response.output_text.done' && done.text).toBe('Hello')
    const completed = events[9]
    if (completed?.type !== 'response.completed') throw new Error('no completed event')
    expect(completed.response.status).toBe('completed')
    expect(completed.response.usage).toEqual({
      input_tokens: 10,
      input_tokens_details: { cached_tokens: 0 },
      output_tokens: 3,
      output_tokens_details: { reasoning_tokens: 0 },
      total_tokens: 13,
    })
    const [message] = completed.response.output
    expect(message).toMatchObject({ type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Hello', annotations: [] }] })
    expect(message?.id).toMatch(/^msg_[0-9a-f]{24}$/)
  })

  it('streams tool calls as function_call items, each with its call id, name and argument pieces', () => {
    const { b, events } = builder()
    b.start()
    b.toolCall({ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } })
    b.toolCall({ index: 1, id: 'call_b', type: 'function', function: { name: 'g', arguments: '{"x"' } })
    b.toolCall({ index: 0, function: { arguments: '{}' } })
    b.toolCall({ index: 1, function: { arguments: ':1}' } })
    b.finish({ kind: 'completed' }, usage)
    const kinds = events.slice(2).map((e) => [e.type, 'output_index' in e ? e.output_index : null])
    expect(kinds).toEqual([
      ['response.output_item.added', 0],
      ['response.output_item.added', 1],
      ['response.function_call_arguments.delta', 1],
      ['response.function_call_arguments.delta', 0],
      ['response.function_call_arguments.delta', 1],
      ['response.function_call_arguments.done', 0],
      ['response.output_item.done', 0],
      ['response.function_call_arguments.done', 1],
      ['response.output_item.done', 1],
      ['response.completed', null],
    ])
    const last = events[events.length - 1]
    if (last?.type !== 'response.completed') throw new Error('no completed event')
    expect(last.response.output).toMatchObject([
      { type: 'function_call', call_id: 'call_a', name: 'f', arguments: '{}', status: 'completed' },
      { type: 'function_call', call_id: 'call_b', name: 'g', arguments: '{"x":1}', status: 'completed' },
    ])
    expect(last.response.tools).toEqual([{ type: 'function', name: 'f', description: null, parameters: null, strict: null }])
  })

  it('gives reasoning its own item, as summary text, before the message', () => {
    const { b, events } = builder()
    b.start()
    b.reasoning('think')
    b.content('say')
    b.finish({ kind: 'completed' }, usage)
    expect(events.slice(2, 8).map((e) => e.type)).toEqual([
      'response.output_item.added',
      'response.reasoning_summary_part.added',
      'response.reasoning_summary_text.delta',
      'response.reasoning_summary_text.done',
      'response.reasoning_summary_part.done',
      'response.output_item.done',
    ])
    const last = events[events.length - 1]
    if (last?.type !== 'response.completed') throw new Error('no completed event')
    expect(last.response.output.map((item) => item.type)).toEqual(['reasoning', 'message'])
    expect(last.response.output[0]).toMatchObject({ summary: [{ type: 'summary_text', text: 'think' }] })
  })

  it('ends a reply cut at max_output_tokens as incomplete, its item too', () => {
    const { b, events } = builder()
    b.start()
    b.content('Hel')
    b.finish({ kind: 'incomplete', reason: 'max_output_tokens' }, usage)
    const last = events[events.length - 1]
    if (last?.type !== 'response.incomplete') throw new Error('no incomplete event')
    expect(last.response).toMatchObject({ status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } })
    expect(last.response.output[0]?.status).toBe('incomplete')
  })

  it('ends a failed reply with an error event, then response.failed, closing nothing', () => {
    const { b, events } = builder()
    b.start()
    b.content('Hel')
    b.finish({ kind: 'failed', code: 'upstream_error', message: 'reset' }, usage)
    expect(events.slice(-2).map((e) => e.type)).toEqual(['error', 'response.failed'])
    expect(events.some((e) => e.type === 'response.output_item.done')).toBe(false)
    const last = events[events.length - 1]
    if (last?.type !== 'response.failed') throw new Error('no failed event')
    expect(last.response).toMatchObject({ status: 'failed', error: { code: 'upstream_error', message: 'reset' } })
  })

  it('gives the same response object for a JSON reply, without a sink', () => {
    const b = new ResponseBuilder({ id: 'resp_2', createdAt: 1, model: 'm' }, requestOf({ input: 'hi' }))
    b.content('ok')
    const response = b.response({ kind: 'completed' }, usage)
    expect(response).toMatchObject({ id: 'resp_2', status: 'completed', output: [{ type: 'message', status: 'completed', content: [{ text: 'ok' }] }] })
  })
})
