import type { ToolCallDelta, Usage } from '../../../shared/api/chat-response'
import type { ResponsesRequest } from '../../../shared/api/responses-request'
import type {
  IncompleteReason,
  ResponseFunctionCallItem,
  ResponseMessageItem,
  ResponseObject,
  ResponseOutputItem,
  ResponseReasoningItem,
  ResponseStreamEvent,
  ResponseUsage,
  SequencedEvent,
} from '../../../shared/api/responses-response'
import { randomHex } from '../../random-id'

/** How a response ends, in the Responses API's terms. */
export type ResponseEnding =
  | { kind: 'completed' }
  | { kind: 'incomplete'; reason: IncompleteReason }
  | { kind: 'failed'; code: string; message: string }

/** Where events go: the stream encoder's frames, or nowhere for a JSON reply. */
export type ResponseEventSink = (event: SequencedEvent) => void

export interface ResponseIdentity {
  id: string
  /** Unix seconds. */
  createdAt: number
  model: string
}

type OpenItem =
  | { kind: 'message'; index: number; item: ResponseMessageItem }
  | { kind: 'reasoning'; index: number; item: ResponseReasoningItem }
  | { kind: 'calls'; calls: Map<number, { index: number; item: ResponseFunctionCallItem }> }

/**
 * Builds one response from a generation's pieces (text, reasoning, tool-call pieces, as any
 * backend pushes them), as the stream of events the API sends and as the response object the
 * stream ends with — which is also the JSON reply. The order is the API's:
 * response.created, response.in_progress; per output item output_item.added, then for a message
 * content_part.added, output_text.delta…, output_text.done, content_part.done (for reasoning the
 * reasoning_summary_part / _text events; for a call function_call_arguments.delta….done), then
 * output_item.done; and one of response.completed / response.incomplete / response.failed (a
 * failure preceded by an `error` event). An item closes when an item of another kind begins;
 * tool calls stay open together until then, since a model server may interleave their pieces.
 */
export class ResponseBuilder {
  private sequence = 0
  private readonly output: ResponseOutputItem[] = []
  private open: OpenItem | undefined

  constructor(
    private readonly identity: ResponseIdentity,
    private readonly request: ResponsesRequest,
    private readonly sink: ResponseEventSink = () => undefined,
  ) {}

  /** The first two events, before any output. */
  start(): void {
    const snapshot = this.snapshot('in_progress', null, null)
    this.emit({ type: 'response.created', response: snapshot })
    this.emit({ type: 'response.in_progress', response: snapshot })
  }

  content(text: string): void {
    let open = this.open
    if (open?.kind !== 'message') {
      this.closeOpen('completed')
      const item: ResponseMessageItem = { id: itemId('msg'), type: 'message', status: 'in_progress', role: 'assistant', content: [] }
      open = this.begin({ kind: 'message', index: this.output.length, item })
      const part = { type: 'output_text' as const, text: '', annotations: [] as [], logprobs: [] as [] }
      item.content.push({ ...part })
      this.emit({ type: 'response.content_part.added', item_id: item.id, output_index: open.index, content_index: 0, part })
    }
    const part = open.item.content[0]
    if (part !== undefined) part.text += text
    this.emit({ type: 'response.output_text.delta', item_id: open.item.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] })
  }

  reasoning(text: string): void {
    let open = this.open
    if (open?.kind !== 'reasoning') {
      this.closeOpen('completed')
      const item: ResponseReasoningItem = { id: itemId('rs'), type: 'reasoning', status: 'in_progress', summary: [] }
      open = this.begin({ kind: 'reasoning', index: this.output.length, item })
      item.summary.push({ type: 'summary_text', text: '' })
      this.emit({
        type: 'response.reasoning_summary_part.added',
        item_id: item.id,
        output_index: open.index,
        summary_index: 0,
        part: { type: 'summary_text', text: '' },
      })
    }
    const summary = open.item.summary[0]
    if (summary !== undefined) summary.text += text
    this.emit({ type: 'response.reasoning_summary_text.delta', item_id: open.item.id, output_index: open.index, summary_index: 0, delta: text })
  }

  /** One streamed piece of a tool call: `index` says which call, the first piece of each has its id and name. */
  toolCall(delta: ToolCallDelta): void {
    if (this.open?.kind !== 'calls') {
      this.closeOpen('completed')
      this.open = { kind: 'calls', calls: new Map() }
    }
    const { calls } = this.open
    let call = calls.get(delta.index)
    if (call === undefined) {
      const item: ResponseFunctionCallItem = {
        id: itemId('fc'),
        type: 'function_call',
        status: 'in_progress',
        call_id: delta.id ?? 'call_' + randomHex(12),
        name: delta.function?.name ?? '',
        arguments: '',
      }
      call = { index: this.output.length, item }
      calls.set(delta.index, call)
      this.output.push(item)
      this.emit({ type: 'response.output_item.added', output_index: call.index, item: { ...item } })
    }
    const piece = delta.function?.arguments ?? ''
    if (piece !== '') {
      call.item.arguments += piece
      this.emit({ type: 'response.function_call_arguments.delta', item_id: call.item.id, output_index: call.index, delta: piece })
    }
  }

  /**
   * The last events: the open item closed (`incomplete` when the reply was cut or stopped), then the
   * terminal event with the whole response. A failure closes nothing: an `error` event, then
   * response.failed with what there was.
   */
  finish(ending: ResponseEnding, usage: ResponseUsage): void {
    if (ending.kind === 'failed') {
      this.markOpen('incomplete')
      this.open = undefined
      const response = this.snapshot('failed', usage, null, { code: ending.code, message: ending.message })
      this.emit({ type: 'error', code: ending.code, message: ending.message, param: null })
      this.emit({ type: 'response.failed', response })
      return
    }
    if (ending.kind === 'incomplete') {
      this.closeOpen('incomplete')
      this.emit({ type: 'response.incomplete', response: this.snapshot('incomplete', usage, { reason: ending.reason }) })
    } else {
      this.closeOpen('completed')
      this.emit({ type: 'response.completed', response: this.snapshot('completed', usage, null) })
    }
  }

  /** The response as it stands: after `finish`, the JSON reply. */
  response(ending: ResponseEnding, usage: ResponseUsage): ResponseObject {
    if (ending.kind === 'failed') return this.snapshot('failed', usage, null, { code: ending.code, message: ending.message })
    this.markOpen(ending.kind === 'incomplete' ? 'incomplete' : 'completed')
    return ending.kind === 'incomplete'
      ? this.snapshot('incomplete', usage, { reason: ending.reason })
      : this.snapshot('completed', usage, null)
  }

  private begin<T extends Exclude<OpenItem, { kind: 'calls' }>>(open: T): T {
    this.open = open
    this.output.push(open.item)
    this.emit({ type: 'response.output_item.added', output_index: open.index, item: emptyCopy(open.item) })
    return open
  }

  private closeOpen(status: 'completed' | 'incomplete'): void {
    const open = this.open
    if (open === undefined) return
    this.open = undefined
    switch (open.kind) {
      case 'message': {
        const { item, index } = open
        item.status = status
        const part = item.content[0] ?? { type: 'output_text' as const, text: '', annotations: [] as [], logprobs: [] as [] }
        this.emit({ type: 'response.output_text.done', item_id: item.id, output_index: index, content_index: 0, text: part.text, logprobs: [] })
        this.emit({ type: 'response.content_part.done', item_id: item.id, output_index: index, content_index: 0, part })
        this.emit({ type: 'response.output_item.done', output_index: index, item })
        return
      }
      case 'reasoning': {
        const { item, index } = open
        item.status = status
        const part = item.summary[0] ?? { type: 'summary_text' as const, text: '' }
        this.emit({ type: 'response.reasoning_summary_text.done', item_id: item.id, output_index: index, summary_index: 0, text: part.text })
        this.emit({ type: 'response.reasoning_summary_part.done', item_id: item.id, output_index: index, summary_index: 0, part })
        this.emit({ type: 'response.output_item.done', output_index: index, item })
        return
      }
      case 'calls':
        for (const { item, index } of open.calls.values()) {
          item.status = status
          this.emit({ type: 'response.function_call_arguments.done', item_id: item.id, output_index: index, name: item.name, arguments: item.arguments })
          this.emit({ type: 'response.output_item.done', output_index: index, item })
        }
    }
  }

  /** Mark what is still open without events (the JSON reply, or a failed stream). */
  private markOpen(status: 'completed' | 'incomplete'): void {
    const open = this.open
    if (open === undefined) return
    if (open.kind === 'calls') for (const { item } of open.calls.values()) item.status = status
    else open.item.status = status
  }

  private emit(event: ResponseStreamEvent): void {
    this.sink({ ...event, sequence_number: this.sequence++ } as SequencedEvent)
  }

  private snapshot(
    status: ResponseObject['status'],
    usage: ResponseUsage | null,
    incomplete: ResponseObject['incomplete_details'],
    error: ResponseObject['error'] = null,
  ): ResponseObject {
    const { request, identity } = this
    return {
      id: identity.id,
      object: 'response',
      created_at: identity.createdAt,
      status,
      error,
      incomplete_details: incomplete,
      instructions: request.instructions ?? null,
      max_output_tokens: request.maxOutputTokens ?? null,
      model: identity.model,
      output: status === 'in_progress' ? [] : this.output.map((item) => ({ ...item })),
      parallel_tool_calls: request.parallelToolCalls ?? true,
      previous_response_id: null,
      reasoning: { effort: request.reasoningEffort ?? null, summary: null },
      store: false,
      temperature: request.temperature ?? null,
      text: { format: request.textFormat ?? { type: 'text' } },
      tool_choice: request.toolChoice ?? 'auto',
      tools: request.tools.map((tool) => ({
        type: 'function',
        name: tool.name,
        description: tool.description ?? null,
        parameters: tool.parameters ?? null,
        strict: tool.strict ?? null,
      })),
      top_p: request.topP ?? null,
      truncation: 'disabled',
      usage,
      user: request.user ?? null,
      metadata: {},
    }
  }
}

/** The item as `output_item.added` shows it: nothing generated yet. */
function emptyCopy(item: ResponseOutputItem): ResponseOutputItem {
  if (item.type === 'message') return { ...item, content: [] }
  if (item.type === 'reasoning') return { ...item, summary: [] }
  return { ...item }
}

function itemId(prefix: 'msg' | 'rs' | 'fc'): string {
  return `${prefix}_${randomHex(12)}`
}

/** A response ID: `resp_` and 24 hexadecimal characters. */
export function newResponseId(): string {
  return 'resp_' + randomHex(12)
}

/** Chat usage in the Responses API's names, details always present (clients read them unguarded). */
export function responseUsage(usage: Usage): ResponseUsage {
  const cached = usage.prompt_tokens_details?.cached_tokens
  const reasoning = usage.completion_tokens_details?.reasoning_tokens
  return {
    input_tokens: usage.prompt_tokens,
    input_tokens_details: { cached_tokens: typeof cached === 'number' ? cached : 0 },
    output_tokens: usage.completion_tokens,
    output_tokens_details: { reasoning_tokens: typeof reasoning === 'number' ? reasoning : 0 },
    total_tokens: usage.total_tokens,
  }
}
