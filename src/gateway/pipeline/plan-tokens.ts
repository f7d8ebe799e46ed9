import type { ChatCompletionRequest } from '../../shared/api/chat-request'
import type { CatalogModel } from '../config/model-catalog'
import { invalidRequest } from '../errors'
import { countTemplateTokens, renderQwen2Prompt } from '../tokens/chat-template'

export const DEFAULT_MAX_TOKENS = 1024
export const TEMPLATE_OVERHEAD_TOKENS = 32
export const MIN_REPLY_TOKENS = 64

export interface TokenPlan {
  /** The prompt as the model reads it, chat-template framing included: `usage.prompt_tokens`. */
  promptTokens: number
  /** What the reply may use: the client's max_tokens (default 1,024), lowered to what is left. */
  maxTokens: number
}

/**
 * Stage: fit the request into the context window. The prompt, the reply and 32 tokens of
 * template overhead must fit; with fewer than 64 tokens left for the reply the request fails.
 */
export function planTokens(model: CatalogModel, request: ChatCompletionRequest): TokenPlan {
  const promptTokens = countTemplateTokens(renderQwen2Prompt(request.messages, request.tools), model.tokenizer)
  const left = model.contextWindow - promptTokens - TEMPLATE_OVERHEAD_TOKENS
  if (left < MIN_REPLY_TOKENS) {
    throw invalidRequest(
      `This model's context window is ${model.contextWindow} tokens. The prompt uses ${promptTokens}, ` +
        `which with ${TEMPLATE_OVERHEAD_TOKENS} tokens of chat-template overhead leaves ${Math.max(left, 0)} for ` +
        `the reply; at least ${MIN_REPLY_TOKENS} are needed. Start a new conversation or send fewer messages.`,
      'messages',
      'context_length_exceeded',
    )
  }
  return { promptTokens, maxTokens: Math.min(request.maxTokens ?? DEFAULT_MAX_TOKENS, left) }
}
