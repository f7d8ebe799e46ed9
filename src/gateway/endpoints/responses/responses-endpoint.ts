import { parseResponsesRequest } from '../../../shared/api/responses-request'
import { responsesToChat } from '../../../shared/api/responses-to-chat'
import type { GenerationRequest } from '../../backends/generation-request'
import { chatCompletionsForm } from '../../backends/upstream/forms/chat-completions-form'
import { ResponsesForm } from '../../backends/upstream/forms/responses-form'
import { invalidRequest } from '../../errors'
import { isRememberedElement } from '../../http/parsed-parts'
import type { Endpoint } from '../endpoint'
import { newResponseId } from './response-builder'
import { responsesWire } from './responses-wire'

/**
 * POST /v1/responses (docs/responses.md): the Responses contract (shared/api/responses-request.ts),
 * run as the chat conversation it translates to. A model server is asked natively first
 * (its own /v1/responses), else in chat completions; JSON unless `stream` is true, in every dialect.
 */
export const responsesEndpoint: Endpoint = {
  path: '/responses',
  newId: newResponseId,
  accept(body) {
    const parsed = parseResponsesRequest(body, isRememberedElement)
    if (!parsed.ok) throw invalidRequest(parsed.issue.message, parsed.issue.param)
    const responses = parsed.request
    const { conversation, extraFields } = responsesToChat(responses)
    const request: GenerationRequest = {
      prompt: { kind: 'messages', ...conversation },
      stream: responses.stream,
      includeUsage: false,
      maxTokens: responses.maxOutputTokens,
      // Codex CLI names its session only in prompt_cache_key: it keeps the session's turns on one replica.
      user: responses.user ?? responses.promptCacheKey,
      extraFields,
      forms: [new ResponsesForm(responses), chatCompletionsForm],
    }
    return { model: responses.model, request }
  },
  wire: responsesWire,
}
