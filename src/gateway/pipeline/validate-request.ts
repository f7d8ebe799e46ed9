import { parseChatRequest, type ChatCompletionRequest } from '../../shared/api/chat-request'
import { invalidRequest } from '../errors'

/** Stage: the body against the reference's rules (zod schema in shared/api). */
export function validateChatRequest(body: unknown): ChatCompletionRequest {
  const parsed = parseChatRequest(body)
  if (!parsed.ok) throw invalidRequest(parsed.issue.message, parsed.issue.param)
  return parsed.request
}
