import type { ChatCompletionRequest } from '../../shared/api/chat-request'
import type { CatalogModel } from '../config/model-catalog'
import { invalidRequest, type GatewayError } from '../errors'
import { renderQwen2Prompt } from '../tokens/chat-template'
import { promptCounterFor } from '../tokens/prompt-counter'

/** The reference's max_tokens default, for models (and `mortar serve`) that set none. */
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
  /**
   * What the reply may use: the client's max_tokens, else the model's default (1,024 unless
   * configured), lowered to what the window leaves. Undefined: none is sent, the server's own
   * limit applies.
   */
  maxTokens: number | undefined
}

/**
 * Uncounted prompt text up to this many characters is tokenized at once (a few milliseconds at
 * worst); more is tokenized in slices that yield to the event loop (tokens/count-in-slices.ts).
 */
export const COUNT_AT_ONCE_CHARS = 4_096

/**
 * Stage: fit the request into the context window. The prompt, the reply and 32 tokens of
 * template overhead must fit; with fewer than 64 tokens left for the reply the request fails.
 * A model whose window nobody knows (a model server that did not say) is not checked: the server
 * decides, rather than Mortar refusing on a guess.
 *
 * Counting is exact and cheap when the history is cached (see tokens/prompt-counter.ts). What is
 * not cached is first bounded in one linear pass (bytes / longest token ≤ tokens ≤ bytes):
 * - a prompt whose lower bound already leaves no room is refused without tokenizing anything;
 * - one whose upper bound shows that it fits and max_tokens needs no lowering is not tokenized
 *   here when it is small: neither decision depends on the exact count, which is made when
 *   `promptTokens` is first read (for usage) instead;
 * - otherwise it is counted exactly — in slices when large, stopping once it passes the window.
 */
export async function planTokens(
  model: Pick<CatalogModel, 'tokenizer' | 'contextWindow' | 'defaultMaxTokens'>,
  request: ChatCompletionRequest,
): Promise<TokenPlan> {
  const measure = promptCounterFor(model.tokenizer).measure(renderQwen2Prompt(request.messages, request.tools))
  const wanted = request.maxTokens ?? model.defaultMaxTokens
  const countedLater = (): TokenPlan => ({
    get promptTokens() {
      return measure.exact()
    },
    maxTokens: wanted,
  })
  if (model.contextWindow === undefined) {
    // Nothing to check; a large prompt is still counted (for usage) in slices, never in one go.
    if (measure.uncountedChars <= COUNT_AT_ONCE_CHARS) return countedLater()
    return { promptTokens: await measure.exactInSlices(Number.POSITIVE_INFINITY), maxTokens: wanted }
  }
  const room = model.contextWindow - TEMPLATE_OVERHEAD_TOKENS
  // The most prompt tokens that still leave MIN_REPLY_TOKENS for the reply.
  const limit = room - MIN_REPLY_TOKENS
  if (measure.lowerBound > limit) throw contextLengthExceeded(model.contextWindow, measure.lowerBound, 'at least ')
  const atOnce = measure.uncountedChars <= COUNT_AT_ONCE_CHARS
  if (atOnce && measure.upperBound !== undefined && measure.upperBound + Math.max(wanted ?? 0, MIN_REPLY_TOKENS) <= room) return countedLater()

  const promptTokens = atOnce ? measure.exact() : await measure.exactInSlices(limit)
  // A count in slices stops once it passes the limit: then it is a lower bound, not the count.
  if (promptTokens > limit) throw contextLengthExceeded(model.contextWindow, promptTokens, atOnce ? '' : 'at least ')
  const left = room - promptTokens
  return { promptTokens, maxTokens: wanted === undefined ? undefined : Math.min(wanted, left) }
}

function contextLengthExceeded(contextWindow: number, promptTokens: number, atLeast: '' | 'at least '): GatewayError {
  const left = contextWindow - TEMPLATE_OVERHEAD_TOKENS - promptTokens
  return invalidRequest(
    `This model's context window is ${contextWindow} tokens. The prompt uses ${atLeast}${promptTokens}, ` +
      `which with ${TEMPLATE_OVERHEAD_TOKENS} tokens of chat-template overhead leaves ${Math.max(left, 0)} for ` +
      `the reply; at least ${MIN_REPLY_TOKENS} are needed. Start a new conversation or send fewer messages.`,
    'messages',
    'context_length_exceeded',
  )
}
