import { z } from 'zod'

/**
 * The response contract of POST /v1/chat/completions: the chat completion object, the chunk object
 * and the usage object, with exactly the API's fields. Shared so that the gateway
 * writes them and the renderer's inspector reads them with one definition.
 */

export type FinishReason = 'stop' | 'length' | 'tool_calls' | (string & {})

export const usageSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  /** Passed through from a model server that reports them (cached_tokens…). */
  prompt_tokens_details: z.record(z.string(), z.unknown()).optional(),
  completion_tokens_details: z.record(z.string(), z.unknown()).optional(),
})
export type Usage = z.output<typeof usageSchema>

export interface AssistantToolCall {
  id: string
  type: 'function'
  function: { name: string; arguments: string }
}

export interface ChatCompletion {
  id: string
  object: 'chat.completion'
  created: number
  model: string
  choices: [
    {
      index: 0
      message: {
        role: 'assistant'
        content: string | null
        /** The model's reasoning, when the model server sent any (its `reasoning_content` or `reasoning`). */
        reasoning_content?: string
        tool_calls?: AssistantToolCall[]
      }
      logprobs: null
      finish_reason: FinishReason
    },
  ]
  usage: Usage
}

export interface ToolCallDelta {
  index: number
  id?: string
  type?: 'function'
  function?: { name?: string; arguments: string }
}

export interface ChunkDelta {
  role?: 'assistant'
  content?: string
  /** A piece of the model's reasoning, as a model server sent it (its `reasoning_content` or `reasoning`). */
  reasoning_content?: string
  tool_calls?: ToolCallDelta[]
}

export interface ChunkChoice {
  index: 0
  /** Absent on the finish chunk of the Mortar dialect (which carries only `finish_reason`). */
  delta?: ChunkDelta
  logprobs: null
  finish_reason: FinishReason | null
}

export interface ChatCompletionChunk {
  id: string
  object: 'chat.completion.chunk'
  created: number
  model: string
  /** One choice, or none on the usage chunk. */
  choices: ChunkChoice[]
  usage?: Usage
}

export interface StopGenerationResponse {
  stopped: boolean
  id: string
}

export interface ModelObject {
  id: string
  object: 'model'
  created: number
  owned_by: string
  /**
   * Tokens the prompt, the reply and the template overhead must fit in; null when the model
   * server did not say (Mortar then checks nothing and the server decides).
   */
  context_window: number | null
  /** The same as `context_window`, under vLLM's name (Continue reads it); absent when unknown. */
  max_model_len?: number
  /**
   * Where the window came from: `config.json`, `mortar serve --context-window`, `default` (the
   * scripted model's 4,096), the model server that said (`<replica> GET /v1/models max_model_len`),
   * or `unknown`.
   */
  context_window_source: string
  /** The max_tokens Mortar sends when the client sends none; null: none is sent. */
  default_max_tokens: number | null
  /** The deployment serving it, or null when it is in the catalog but not deployed. */
  deployment: string | null
}

export interface ModelList {
  object: 'list'
  data: ModelObject[]
}
