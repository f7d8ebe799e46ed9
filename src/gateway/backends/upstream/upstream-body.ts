import type { ChatCompletionRequest } from '../../../shared/api/chat-request'

/**
 * The body sent to a model server: the client's fields as sent (temperature, stop, … included),
 * the normalized messages (so `developer` and content arrays reach servers that don't know them
 * as plain system text), the planned max_tokens (none when the model's default is none), and always an explicit `stream` — Mortar
 * defaults it to true, model servers to false. When streaming, usage is asked for whether or not
 * the client asked (Mortar drops it again for a client that didn't).
 */
export function upstreamRequestBody(
  request: ChatCompletionRequest,
  options: { model: string; maxTokens: number | undefined; askForUsage: boolean },
): string {
  const body: Record<string, unknown> = {
    ...request.extraFields,
    model: options.model,
    messages: request.messages,
    stream: request.stream,
  }
  if (options.maxTokens !== undefined) body.max_tokens = options.maxTokens
  if (request.stream && options.askForUsage) body.stream_options = { include_usage: true }
  if (request.tools.length > 0) {
    body.tools = request.tools
    if (request.toolChoice !== undefined) body.tool_choice = request.toolChoice
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls
  }
  if (request.user !== undefined) body.user = request.user
  return JSON.stringify(body)
}

/** Whether a model server's 400 says it does not take `stream_options` (older llama.cpp, some proxies). */
export function rejectsStreamOptions(status: number, body: string): boolean {
  return status >= 400 && status < 500 && /stream_options/i.test(body)
}
