import type { RequestHandler } from 'express'
import { parseCountTokensRequest } from '../../shared/api/messages-request'
import type { CountTokensResponse } from '../../shared/api/messages-response'
import { messagesToChat } from '../../shared/api/messages-to-chat'
import type { ModelCatalog } from '../config/model-catalog'
import { chatGenerationRequest } from '../endpoints/chat-completions/chat-completions-endpoint'
import { ANTHROPIC_ERRORS } from '../endpoints/messages/messages-wire'
import { invalidRequest } from '../errors'
import { answerErrorsAs } from '../http/error-format'
import { readJsonBody } from '../http/read-json-body'
import { sendJson } from '../http/send-json'
import { planTokens } from '../pipeline/plan-tokens'

/**
 * POST /v1/messages/count_tokens: the prompt's tokens as POST /v1/messages would count them —
 * the same translation, the same chat template and the model's own tokenizer, by the same
 * planning stage — so `input_tokens` here is the `usage.input_tokens` of the same request to the
 * scripted model (a model server reports its own count; docs/messages.md). A prompt longer than
 * the context window is still counted: saying how long it is is the point.
 */
export const countTokens =
  (deps: { catalog: () => ModelCatalog; bodyLimitBytes: number }): RequestHandler =>
  async (req, res) => {
    answerErrorsAs(req, ANTHROPIC_ERRORS)
    const body = await readJsonBody(req, deps.bodyLimitBytes)
    const parsed = parseCountTokensRequest(body.value)
    if (!parsed.ok) throw invalidRequest(parsed.issue.message, parsed.issue.param)
    const model = deps.catalog().resolve(parsed.request.model)
    const request = chatGenerationRequest(messagesToChat(parsed.request).request)
    const plan = await planTokens({ tokenizer: model.tokenizer, contextWindow: undefined, defaultMaxTokens: undefined }, request)
    const answer: CountTokensResponse = { input_tokens: await plan.counted() }
    sendJson(res, 200, answer)
  }
