import type { GenerationRequest, Prompt } from '../backends/generation-request'
import type { CatalogModel } from '../config/model-catalog'
import { invalidRequest, type GatewayError } from '../errors'
import { promptCounterFor, type PromptCounter, type PromptMeasure } from '../tokens/prompt-counter'

/** The max_tokens a request without one gets, for models (and `mortar serve`) that set none (docs/api-decisions.md#max_tokens). */
export const DEFAULT_MAX_TOKENS = 1024
export const TEMPLATE_OVERHEAD_TOKENS = 32
export const MIN_REPLY_TOKENS = 64

export interface TokenPlan {
  /**
   * The prompt as the model reads it, chat-template framing included for a conversation:
   * `usage.prompt_tokens`.
   * Always exact for the model's tokenizer — but when planning could prove the prompt fits
   * without it, it is counted on first read (then remembered), not before: a read may then
   * tokenize the whole uncounted part at once. A reader that may meet a long one awaits
   * `counted()` first.
   */
  readonly promptTokens: number
  /**
   * The same count, made in slices that yield to the event loop when more than
   * COUNT_AT_ONCE_CHARS of the prompt are not counted yet; `promptTokens` is then a read of it.
   */
  counted(): Promise<number>
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
 * How the model reads a prompt, for counting: a conversation through the Qwen2.5 chat template
 * (with 32 tokens of overhead for what the template may add), a plain prompt as written — never
 * wrapped in the template — with its suffix (a FIM request's text after the cursor).
 */
function measured(prompt: Prompt, counter: PromptCounter): { measure: PromptMeasure; overhead: number; param: string } {
  if (prompt.kind === 'messages') return { measure: counter.measureConversation(prompt.messages, prompt.tools), overhead: TEMPLATE_OVERHEAD_TOKENS, param: 'messages' }
  return { measure: counter.measure(prompt.suffix === undefined ? [prompt.text] : [prompt.text, prompt.suffix]), overhead: 0, param: 'prompt' }
}

/**
 * Stage: fit the request into the context window. The prompt, the reply and the rendering's
 * overhead (32 tokens of chat template for a conversation, none for a plain prompt) must fit;
 * with fewer than 64 tokens left for the reply the request fails.
 * A model whose window nobody knows (a model server that did not say) is not checked: the server
 * decides, rather than Mortar refusing on a guess.
 *
 * Counting is exact and cheap when the history is cached (see tokens/prompt-counter.ts). What is
 * not cached is first bounded in one linear pass (bytes / longest token ≤ tokens ≤ bytes; each
 * run's bounds are cached too):
 * - a prompt whose lower bound already leaves no room is refused without tokenizing anything;
 * - one whose upper bound shows that it fits and max_tokens needs no lowering is not tokenized
 *   here, whatever its size: neither decision depends on the exact count, which most requests
 *   never need (a model server reports its own usage). It is made when `counted()` is awaited
 *   or `promptTokens` read (for an estimate of usage, the Messages stream's start, a count of
 *   tokens);
 * - otherwise it is counted exactly — in slices when large, stopping once it passes the window.
 */
export async function planTokens(
  model: Pick<CatalogModel, 'tokenizer' | 'contextWindow' | 'defaultMaxTokens'>,
  request: Pick<GenerationRequest, 'prompt' | 'maxTokens'>,
): Promise<TokenPlan> {
  const { measure, overhead, param } = measured(request.prompt, promptCounterFor(model.tokenizer))
  const wanted = request.maxTokens ?? model.defaultMaxTokens
  const atOnce = measure.uncountedChars <= COUNT_AT_ONCE_CHARS
  const countUpTo = (limit: number) => (atOnce ? Promise.resolve(measure.exact()) : measure.exactInSlices(limit))
  let counting: Promise<number> | undefined
  const countedLater = (): TokenPlan => ({
    get promptTokens() {
      return measure.exact()
    },
    counted: () => (counting ??= countUpTo(Number.POSITIVE_INFINITY)),
    maxTokens: wanted,
  })
  // Nothing to check.
  if (model.contextWindow === undefined) return countedLater()
  const window = model.contextWindow
  const room = window - overhead
  // The most prompt tokens that still leave MIN_REPLY_TOKENS for the reply.
  const limit = room - MIN_REPLY_TOKENS
  const exceeded = (promptTokens: number, atLeast: '' | 'at least ') => contextLengthExceeded(window, overhead, param, promptTokens, atLeast)
  if (measure.lowerBound > limit) throw exceeded(measure.lowerBound, 'at least ')
  if (measure.upperBound !== undefined && measure.upperBound + Math.max(wanted ?? 0, MIN_REPLY_TOKENS) <= room) return countedLater()

  const promptTokens = await countUpTo(limit)
  // A count in slices stops once it passes the limit: then it is a lower bound, not the count.
  if (promptTokens > limit) throw exceeded(promptTokens, atOnce ? '' : 'at least ')
  const left = room - promptTokens
  return { promptTokens, counted: () => Promise.resolve(promptTokens), maxTokens: wanted === undefined ? undefined : Math.min(wanted, left) }
}

function contextLengthExceeded(contextWindow: number, overhead: number, param: string, promptTokens: number, atLeast: '' | 'at least '): GatewayError {
  const left = contextWindow - overhead - promptTokens
  const leaves = overhead > 0 ? `which with ${overhead} tokens of chat-template overhead leaves` : 'which leaves'
  const advice = param === 'messages' ? 'Start a new conversation or send fewer messages.' : 'Send a shorter prompt.'
  return invalidRequest(
    `This model's context window is ${contextWindow} tokens. The prompt uses ${atLeast}${promptTokens}, ` +
      `${leaves} ${Math.max(left, 0)} for the reply; at least ${MIN_REPLY_TOKENS} are needed. ${advice}`,
    param,
    'context_length_exceeded',
  )
}
