/**
 * The reply contract of POST /v1/responses: the response object, its output items and its stream
 * events, with the fields OpenAI's API gives them, named and typed as the openai SDK's
 * `resources/responses` types have them. Shared so that the gateway writes them and the inspector reads them with one
 * definition.
 */

export type ResponseStatus = 'completed' | 'incomplete' | 'failed' | 'in_progress'

export interface ResponseUsage {
  input_tokens: number
  input_tokens_details: { cached_tokens: number }
  output_tokens: number
  output_tokens_details: { reasoning_tokens: number }
  total_tokens: number
}

export interface ResponseOutputText {
  type: 'output_text'
  text: string
  annotations: []
  logprobs: []
}

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete'

export interface ResponseMessageItem {
  id: string
  type: 'message'
  status: ItemStatus
  role: 'assistant'
  content: ResponseOutputText[]
}

export interface ResponseFunctionCallItem {
  id: string
  type: 'function_call'
  status: ItemStatus
  call_id: string
  name: string
  arguments: string
}

/** The model's reasoning, as a model server gave it, is sent as the item's summary. */
export interface ResponseReasoningItem {
  id: string
  type: 'reasoning'
  status: ItemStatus
  summary: { type: 'summary_text'; text: string }[]
}

export type ResponseOutputItem = ResponseMessageItem | ResponseFunctionCallItem | ResponseReasoningItem

/**
 * Why a response is `incomplete`: OpenAI's `max_output_tokens` and `content_filter`, and Mortar's
 * own `stopped` (POST /v1/generations/{id}/stop) and `shutdown` (the gateway stopping).
 */
export type IncompleteReason = 'max_output_tokens' | 'content_filter' | 'stopped' | 'shutdown'

export interface ResponseObject {
  id: string
  object: 'response'
  created_at: number
  status: ResponseStatus
  /** Set when the response failed: what went wrong, in the API's `{code, message}`. */
  error: { code: string; message: string } | null
  incomplete_details: { reason: IncompleteReason } | null
  instructions: string | null
  max_output_tokens: number | null
  model: string
  output: ResponseOutputItem[]
  parallel_tool_calls: boolean
  previous_response_id: null
  reasoning: { effort: string | null; summary: string | null }
  store: false
  temperature: number | null
  text: { format: Record<string, unknown> }
  tool_choice: unknown
  tools: unknown[]
  top_p: number | null
  truncation: 'disabled'
  usage: ResponseUsage | null
  user: string | null
  metadata: Record<string, string>
}

/** The events of a streamed response, each with its place (`sequence_number`, from 0). */
export type ResponseStreamEvent =
  | { type: 'response.created' | 'response.in_progress'; response: ResponseObject }
  | { type: 'response.completed' | 'response.incomplete' | 'response.failed'; response: ResponseObject }
  | { type: 'response.output_item.added' | 'response.output_item.done'; output_index: number; item: ResponseOutputItem }
  | {
      type: 'response.content_part.added' | 'response.content_part.done'
      item_id: string
      output_index: number
      content_index: number
      part: ResponseOutputText
    }
  | { type: 'response.output_text.delta'; item_id: string; output_index: number; content_index: number; delta: string; logprobs: [] }
  | { type: 'response.output_text.done'; item_id: string; output_index: number; content_index: number; text: string; logprobs: [] }
  | {
      type: 'response.reasoning_summary_part.added' | 'response.reasoning_summary_part.done'
      item_id: string
      output_index: number
      summary_index: number
      part: { type: 'summary_text'; text: string }
    }
  | { type: 'response.reasoning_summary_text.delta'; item_id: string; output_index: number; summary_index: number; delta: string }
  | { type: 'response.reasoning_summary_text.done'; item_id: string; output_index: number; summary_index: number; text: string }
  | { type: 'response.function_call_arguments.delta'; item_id: string; output_index: number; delta: string }
  | { type: 'response.function_call_arguments.done'; item_id: string; output_index: number; name: string; arguments: string }
  | { type: 'error'; code: string | null; message: string; param: string | null }

export type SequencedEvent = ResponseStreamEvent & { sequence_number: number }
