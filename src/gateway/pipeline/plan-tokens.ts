import type { ChatCompletionRequest } from '../../shared/api/chat-request'
import type { CatalogModel } from '../config/model-catalog'
import { invalidRequest } from '../errors'
import { renderQwen2Prompt } from '../tokens/chat-template'
import { promptCounterFor } from '../tokens/prompt-counter'

export const DEFAULT_MAX_TOKENS = 1024
export const TEMPLATE_OVERHEAD_TOKENS = 32
export const MIN_REPLY_TOKENS = 64

export interface TokenPlan {
  /**
   * The prompt as the model reads it, chat-template framing included: `usage.prompt_tokens`.
   * Always exact for the model's tokenizer — but when planning could prove the prompt fits
   * without it, it is counted on first read (then remembered), not before.
   */
  readonly promptTokens: number
  /** What the reply may use: the client's max_tokens (default 1,024), lowered to what is left. */
  maxTokens: number
}

/**
 * Stage: fit the request into the context window. The prompt, the reply and 32 tokens of
 * template overhead must fit; with fewer than 64 tokens left for the reply the request fails.
 *
 * Counting is exact and cheap when the history is cached (see tokens/prompt-counter.ts). What is
 * not cached yet need not be tokenized here when an upper bound (tokens ≤ UTF-8 bytes) already
 * shows that the prompt fits and max_tokens needs no lowering: neither decision then depends on
 * the exact count, which is made when `promptTokens` is first read (for usage) instead.
 */
export function planTokens(
  model: Pick<CatalogModel, 'tokenizer' | 'contextWindow'>,
  request: ChatCompletionRequest,
): TokenPlan {
  const measure = promptCounterFor(model.tokenizer).measure(renderQwen2Prompt(request.messages, request.tools))
  const wanted = request.maxTokens ?? DEFAULT_MAX_TOKENS
  const room = model.contextWindow - TEMPLATE_OVERHEAD_TOKENS
  if (measure.upperBound !== undefined && measure.upperBound + Math.max(wanted, MIN_REPLY_TOKENS) <= room) {
    return {
      get promptTokens() {
        return measure.exact()
      },
      maxTokens: wanted,
    }
  }

  const promptTokens = measure.exact()
  const left = room - promptTokens
  if (left < MIN_REPLY_TOKENS) {
    throw invalidRequest(
      `This model's context window is ${model.contextWindow} tokens. The prompt uses ${promptTokens}, ` +
        `which with ${TEMPLATE_OVERHEAD_TOKENS} tokens of chat-template overhead leaves ${Math.max(left, 0)} for ` +
        `the reply; at least ${MIN_REPLY_TOKENS} are needed. Start a new conversation or send fewer messages.`,
      'messages',
      'context_length_exceeded',
    )
  }
  return { promptTokens, maxTokens: Math.min(wanted, left) }
}
