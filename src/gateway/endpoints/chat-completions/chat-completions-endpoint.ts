import type { ChatCompletionRequest } from '../../../shared/api/chat-request'
import type { GenerationRequest } from '../../backends/generation-request'
import { chatCompletionsForm } from '../../backends/upstream/forms/chat-completions-form'
import { validateChatRequest } from '../../pipeline/validate-request'
import { randomHex } from '../../random-id'
import type { Endpoint } from '../endpoint'
import { chatCompletionsWire } from './chat-wire'

/** POST /v1/chat/completions: the chat contract (shared/api/chat-request.ts), streamed by default in the Mortar dialect. */
export const chatCompletionsEndpoint: Endpoint = {
  path: '/chat/completions',
  newId: newCompletionId,
  accept(body, { dialect }) {
    const request = validateChatRequest(body, { stream: dialect.streamByDefault })
    return { model: request.model, request: chatGenerationRequest(request) }
  },
  wire: chatCompletionsWire,
}

/** A chat request as the backends read it: its conversation, forwarded as chat completions. */
export function chatGenerationRequest(request: ChatCompletionRequest): GenerationRequest {
  return {
    prompt: {
      kind: 'messages',
      messages: request.messages,
      tools: request.tools,
      toolChoice: request.toolChoice,
      parallelToolCalls: request.parallelToolCalls,
    },
    stream: request.stream,
    includeUsage: request.includeUsage,
    maxTokens: request.maxTokens,
    user: request.user,
    extraFields: request.extraFields,
    forms: CHAT_FORMS,
  }
}

const CHAT_FORMS = [chatCompletionsForm]

/** A completion ID: `chatcmpl-` and 24 hexadecimal characters. */
export function newCompletionId(): string {
  return 'chatcmpl-' + randomHex(12)
}
