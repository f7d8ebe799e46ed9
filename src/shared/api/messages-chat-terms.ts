import type { FinishReason, Usage } from './chat-response'
import { MESSAGES_STOP_REASONS, type MessagesStopReason, type MessagesUsage } from './messages-response'

/**
 * The Messages API's words for what the gateway counts in chat terms, both ways: the gateway's
 * generations end with chat finish reasons and chat usage, whichever API they were asked in.
 */

/** An Anthropic stop reason in chat terms where chat has one; the others (`stop_sequence`, `pause_turn`) are kept as they are. */
export function finishReasonOf(stopReason: string): FinishReason {
  switch (stopReason) {
    case 'end_turn':
      return 'stop'
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length'
    case 'tool_use':
      return 'tool_calls'
    case 'refusal':
      return 'content_filter'
    default:
      return stopReason
  }
}

const ANTHROPIC_REASONS: ReadonlySet<string> = new Set(MESSAGES_STOP_REASONS)

/** How a generation's finish reads in the Messages API; a reason that came from a model server's /v1/messages reads as it came. */
export function stopReasonOf(reason: FinishReason): MessagesStopReason {
  switch (reason) {
    case 'length':
      return 'max_tokens'
    case 'tool_calls':
    case 'function_call':
      return 'tool_use'
    case 'content_filter':
      return 'refusal'
    default:
      return ANTHROPIC_REASONS.has(reason) ? (reason as MessagesStopReason) : 'end_turn'
  }
}

/**
 * Chat usage in Anthropic's terms. Anthropic's `input_tokens` leaves out what was read from the
 * prompt cache (`cache_read_input_tokens`), where chat's `prompt_tokens` includes it.
 */
export function messagesUsageOf(usage: Usage): MessagesUsage {
  const details = usage.prompt_tokens_details
  const cached = typeof details?.cached_tokens === 'number' ? Math.min(details.cached_tokens, usage.prompt_tokens) : 0
  return {
    input_tokens: usage.prompt_tokens - cached,
    output_tokens: usage.completion_tokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: cached,
  }
}

/**
 * Anthropic usage in chat terms: every input token, cached or written to the cache, is a prompt
 * token. Read from a model server's reply, so any field may be missing or not a number.
 */
export function chatUsageOf(usage: Readonly<Record<string, unknown>>): Usage {
  const count = (value: unknown): number => (typeof value === 'number' && Number.isFinite(value) ? value : 0)
  const cached = count(usage.cache_read_input_tokens)
  const prompt = count(usage.input_tokens) + cached + count(usage.cache_creation_input_tokens)
  const completion = count(usage.output_tokens)
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    ...(cached > 0 ? { prompt_tokens_details: { cached_tokens: cached } } : {}),
  }
}
