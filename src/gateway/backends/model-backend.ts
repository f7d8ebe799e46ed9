import type { ChatCompletionRequest } from '../../shared/api/chat-request'
import type { FinishReason, Usage } from '../../shared/api/chat-response'

/**
 * What a backend produces while generating. `tokens` is what each event adds to the reply's token
 * count, so the gateway counts the completion the same way whichever backend produced it.
 */
export type GenerationEvent =
  | { kind: 'content'; text: string; tokens: number }
  | { kind: 'tool_call_start'; index: number; id: string; name: string; tokens: number }
  | { kind: 'tool_call_arguments'; index: number; text: string; tokens: number }
  | { kind: 'finish'; reason: FinishReason }
  /** A model server's own usage report, which replaces the gateway's estimate. */
  | { kind: 'usage'; usage: Usage }

export interface GenerationInput {
  request: ChatCompletionRequest
  /** After planning: what is left of the context window, never more than the client asked. */
  maxTokens: number
  /** Aborted when the client leaves, someone stops the generation, or the gateway shuts down. */
  signal: AbortSignal
}

/**
 * A model deployment. The gateway core talks to every backend through this alone: nothing outside
 * `backends/` knows whether a reply comes from the scripted model or a model server.
 */
export interface ModelBackend {
  /** Named in `X-Mortar-Deployment`. */
  readonly deployment: string
  /**
   * Generate the reply. The iterator ends after a `finish` event, or early (without one) when the
   * signal aborts. Failures are thrown as GatewayError.
   */
  generate(input: GenerationInput): AsyncIterable<GenerationEvent>
}
