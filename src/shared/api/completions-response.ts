import type { FinishReason, Usage } from './chat-response'

/**
 * The response contract of POST /v1/completions: OpenAI's `text_completion` object, whole or as
 * the chunks of a stream (the same object with a piece of the text each, then the finish, then
 * usage when asked, then `[DONE]`).
 */

export interface TextCompletionChoice {
  text: string
  index: 0
  logprobs: null
  finish_reason: FinishReason | null
}

export interface TextCompletion {
  /** `cmpl-…`: also the ID to stop the generation by. */
  id: string
  object: 'text_completion'
  created: number
  model: string
  /** One choice; none on a stream's usage chunk. */
  choices: TextCompletionChoice[]
  usage?: Usage
}
