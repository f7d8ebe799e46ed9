import { MORTAR_REQUEST_DEFAULTS, parseChatRequest, type ChatCompletionRequest, type RequestDefaults } from '../../shared/api/chat-request'
import { invalidRequest } from '../errors'
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from '../http/json-depth'

/** Stage: the body against the request contract (zod schema in shared/api), with the caller's dialect's defaults. */
export function validateChatRequest(body: unknown, defaults: RequestDefaults = MORTAR_REQUEST_DEFAULTS): ChatCompletionRequest {
  const parsed = parseChatRequest(body, defaults)
  if (!parsed.ok) throw invalidRequest(parsed.issue.message, parsed.issue.param)
  checkToolCallArguments(parsed.request)
  return parsed.request
}

/**
 * Tool-call `arguments` are JSON inside a string, which the chat template parses and dumps again:
 * they are held to the same nesting limit as the body itself.
 */
function checkToolCallArguments(request: ChatCompletionRequest): void {
  request.messages.forEach((message, i) => {
    message.tool_calls?.forEach((call, j) => {
      const args = call.function.arguments
      if (args.length > MAX_JSON_DEPTH && jsonNestsDeeperThan(args)) {
        throw invalidRequest(
          `The tool call's arguments nest JSON more than ${MAX_JSON_DEPTH} levels deep, which the gateway does not accept.`,
          `messages[${i}].tool_calls[${j}].function.arguments`,
        )
      }
    })
  })
}
