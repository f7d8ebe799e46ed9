import { spliceClientMembers, type OutgoingJson } from '../../../http/json-splice'
import { promptJson } from '../../../http/json-text'
import type { GenerationRequest } from '../../generation-request'
import { reasoningOf, UpstreamChunkMapper, upstreamUsage } from '../map-upstream-chunk'
import { promptOfKind, type UpstreamBodyOptions, type UpstreamForm, type WholeReply } from '../upstream-form'

/**
 * POST {base}/chat/completions: what every OpenAI-compatible server has, and what the endpoints
 * that translate (Responses, Messages) fall back to. It takes a conversation only: a plain prompt
 * is never wrapped in the chat template.
 */
export const chatCompletionsForm: UpstreamForm = {
  path: '/chat/completions',
  mayBeMissing: false,
  body: chatCompletionsBody,
  decoder: (tokenizer) => new UpstreamChunkMapper(tokenizer),
  whole: wholeChatCompletion,
}

/**
 * The body sent to a model server: the client's fields as sent (temperature, stop, … included),
 * the normalized messages (so `developer` and content arrays reach servers that don't know them
 * as plain system text), the planned max_tokens (none when the model's default is none), and always an explicit `stream` — Mortar
 * defaults it to true, model servers to false. When streaming, usage is asked for whether or not
 * the client asked (Mortar drops it again for a client that didn't).
 *
 * Messages and tools that reach the model server as the client sent them (the same JSON value)
 * go as the client's own bytes (http/json-splice.ts): only the top-level members around them are
 * written anew, so a large prompt is neither quoted nor encoded again.
 */
export function chatCompletionsBody(request: GenerationRequest, options: UpstreamBodyOptions): OutgoingJson {
  const prompt = promptOfKind(request, 'messages', 'chat completions')
  const body: Record<string, unknown> = {
    ...request.extraFields,
    model: options.model,
    messages: prompt.messages,
    stream: request.stream,
  }
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens
  if (request.stream && options.askForUsage) body.stream_options = { include_usage: true }
  if (prompt.tools.length > 0) {
    body.tools = prompt.tools
    if (prompt.toolChoice !== undefined) body.tool_choice = prompt.toolChoice
    if (prompt.parallelToolCalls !== undefined) body.parallel_tool_calls = prompt.parallelToolCalls
  }
  if (request.user !== undefined) body.user = request.user
  return spliceClientMembers(request.source, body, SPLICED_MEMBERS, (value) => promptJson.stringify(value)) ?? promptJson.encodeFrom(body, request.source)
}

const SPLICED_MEMBERS = ['messages', 'tools']

function wholeChatCompletion(reply: unknown): WholeReply | undefined {
  const completion = reply as { choices?: Array<{ message?: Record<string, unknown>; finish_reason?: unknown }>; usage?: unknown } | null
  const choice = completion?.choices?.[0]
  if (choice === undefined) return undefined
  const message = typeof choice.message === 'object' && choice.message !== null ? choice.message : {}
  return {
    content: typeof message.content === 'string' ? message.content : '',
    reasoning: reasoningOf(message),
    toolCalls: Array.isArray(message.tool_calls) ? (message.tool_calls as unknown[]) : [],
    finishReason: typeof choice.finish_reason === 'string' && choice.finish_reason !== '' ? choice.finish_reason : undefined,
    usage: upstreamUsage(completion?.usage),
  }
}
