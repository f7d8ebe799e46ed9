import type { ChatConversation } from '../../shared/api/chat-request'
import type { ClientBody } from '../http/json-splice'
import type { UpstreamForm } from './upstream/upstream-form'

/**
 * A conversation: what the chat template renders (chat completions, and the endpoints that
 * translate to it: Responses, Messages). Tools and the tool rules belong to it.
 */
export interface MessagesPrompt extends ChatConversation {
  kind: 'messages'
}

/**
 * Text the model reads as it is (legacy completions, a FIM-rendered prompt): never wrapped in the
 * chat template, counted as written. `suffix` is the text after the cursor, when the client sent one.
 */
export interface TextPrompt {
  kind: 'text'
  text: string
  suffix: string | undefined
}

export type Prompt = MessagesPrompt | TextPrompt

/**
 * What a backend is asked to generate, whatever endpoint it came in by: the endpoint's accept
 * function builds it, the shared stages (tool selection, optimizer, token planning) refine it,
 * and every backend reads it. Nothing in it is a wire format.
 */
export interface GenerationRequest {
  prompt: Prompt
  /** Whether the client gets a stream (the endpoint's own default applied). */
  stream: boolean
  /** Whether a streamed reply ends with a usage report the client asked for (chat's `stream_options`). */
  includeUsage: boolean
  /** What the client asked for; planning lowers or defaults it. */
  maxTokens: number | undefined
  /** The end user the client named, when it did (`user`): a session name, and passed on. */
  user: string | undefined
  /**
   * Fields the endpoint does not interpret (temperature, top_p, stop, seed…). The scripted model
   * ignores them; the endpoint's own form passes them to a model server as sent.
   */
  extraFields: Record<string, unknown>
  /**
   * How to ask a model server for this, best first: the endpoint's native path, then any
   * translation (Responses and Messages fall back to chat completions). Empty: no model server
   * can serve it.
   */
  forms: readonly UpstreamForm[]
  /**
   * The body the client sent, as read, when it came as JSON: a form may send parts of it that
   * reach the model server unchanged as the client's own bytes (http/json-splice.ts).
   */
  source?: ClientBody | undefined
}
