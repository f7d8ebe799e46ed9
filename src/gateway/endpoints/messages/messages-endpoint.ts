import { parseMessagesRequest } from '../../../shared/api/messages-request'
import { messagesToChat } from '../../../shared/api/messages-to-chat'
import type { GenerationRequest } from '../../backends/generation-request'
import { chatCompletionsForm } from '../../backends/upstream/forms/chat-completions-form'
import { messagesForm } from '../../backends/upstream/forms/messages-form'
import type { UpstreamForm } from '../../backends/upstream/upstream-form'
import { invalidRequest } from '../../errors'
import { isRememberedElement } from '../../http/parsed-parts'
import { chatGenerationRequest } from '../chat-completions/chat-completions-endpoint'
import type { Endpoint } from '../endpoint'
import { newMessageId } from './message-events'
import { messagesWire } from './messages-wire'

/**
 * POST /v1/messages: Anthropic's Messages API (shared/api/messages-request.ts). JSON unless
 * `stream` is true. The scripted model answers the request's chat translation; a model server is
 * asked at its own /v1/messages with the client's body, or, when it has none, in translation
 * through chat completions (docs/messages.md says what does not translate).
 */
export const messagesEndpoint: Endpoint = {
  path: '/messages',
  newId: newMessageId,
  accept(body) {
    const parsed = parseMessagesRequest(body, isRememberedElement)
    if (!parsed.ok) throw invalidRequest(parsed.issue.message, parsed.issue.param)
    const { request, untranslatable } = messagesToChat(parsed.request)
    const translation: UpstreamForm =
      untranslatable === undefined
        ? chatCompletionsForm
        : {
            ...chatCompletionsForm,
            // Answering without the image would be answering another question.
            body: () => {
              throw invalidRequest(
                `This model server has no /v1/messages, and a request through its chat completions cannot carry the ${untranslatable.what} at \`${untranslatable.param}\`. Send text only, or use a server with /v1/messages.`,
                untranslatable.param,
              )
            },
          }
    const generation: GenerationRequest = { ...chatGenerationRequest(request), forms: [messagesForm(body as Record<string, unknown>), translation] }
    return { model: parsed.request.model, request: generation }
  },
  wire: messagesWire,
}
