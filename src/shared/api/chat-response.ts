import { z } from 'zod'

/**
 * The response contract of POST /v1/chat/completions (the chat completion object, the chunk
 * object, the usage object), GET /v1/models and the stop endpoint, with exactly the API's fields,
 * as zod schemas with the types inferred from them. Shared so that the gateway writes them and a
 * reader (the renderer's inspector, a test) parses them against one definition.
 */

/** The finish reasons the API names; a model server may send others, which pass through. */
export const FINISH_REASONS = ['stop', 'length', 'tool_calls'] as const
export const finishReasonSchema = z.union([z.enum(FINISH_REASONS), z.string()])
export type FinishReason = (typeof FINISH_REASONS)[number] | (string & {})

export const usageSchema = z.object({
  prompt_tokens: z.number(),
  completion_tokens: z.number(),
  total_tokens: z.number(),
  /** Passed through from a model server that reports them (cached_tokens…). */
  prompt_tokens_details: z.record(z.string(), z.unknown()).optional(),
  completion_tokens_details: z.record(z.string(), z.unknown()).optional(),
})
export type Usage = z.output<typeof usageSchema>

export const assistantToolCallSchema = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
})
export type AssistantToolCall = z.output<typeof assistantToolCallSchema>

export const chatCompletionSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion'),
  created: z.number(),
  model: z.string(),
  choices: z.tuple([
    z.object({
      index: z.literal(0),
      message: z.object({
        role: z.literal('assistant'),
        content: z.string().nullable(),
        /** The model's reasoning, when the model server sent any (its `reasoning_content` or `reasoning`). */
        reasoning_content: z.string().optional(),
        tool_calls: z.array(assistantToolCallSchema).optional(),
      }),
      logprobs: z.null(),
      finish_reason: finishReasonSchema,
    }),
  ]),
  usage: usageSchema,
})
export type ChatCompletion = z.output<typeof chatCompletionSchema>

export const toolCallDeltaSchema = z.object({
  index: z.number(),
  id: z.string().optional(),
  type: z.literal('function').optional(),
  function: z.object({ name: z.string().optional(), arguments: z.string() }).optional(),
})
export type ToolCallDelta = z.output<typeof toolCallDeltaSchema>

export const chunkDeltaSchema = z.object({
  role: z.literal('assistant').optional(),
  content: z.string().optional(),
  /** A piece of the model's reasoning, as a model server sent it (its `reasoning_content` or `reasoning`). */
  reasoning_content: z.string().optional(),
  tool_calls: z.array(toolCallDeltaSchema).optional(),
})
export type ChunkDelta = z.output<typeof chunkDeltaSchema>

export const chunkChoiceSchema = z.object({
  index: z.literal(0),
  /** Absent on the finish chunk of the Mortar dialect (which carries only `finish_reason`). */
  delta: chunkDeltaSchema.optional(),
  logprobs: z.null(),
  finish_reason: finishReasonSchema.nullable(),
})
export type ChunkChoice = z.output<typeof chunkChoiceSchema>

export const chatCompletionChunkSchema = z.object({
  id: z.string(),
  object: z.literal('chat.completion.chunk'),
  created: z.number(),
  model: z.string(),
  /** One choice, or none on the usage chunk. */
  choices: z.array(chunkChoiceSchema),
  usage: usageSchema.optional(),
})
export type ChatCompletionChunk = z.output<typeof chatCompletionChunkSchema>

export const stopGenerationResponseSchema = z.object({
  stopped: z.boolean(),
  id: z.string(),
})
export type StopGenerationResponse = z.output<typeof stopGenerationResponseSchema>

export const modelObjectSchema = z.object({
  id: z.string(),
  object: z.literal('model'),
  created: z.number(),
  owned_by: z.string(),
  /**
   * Tokens the prompt, the reply and the template overhead must fit in; null when the model
   * server did not say (Mortar then checks nothing and the server decides).
   */
  context_window: z.number().nullable(),
  /** The same as `context_window`, under vLLM's name (Continue reads it); absent when unknown. */
  max_model_len: z.number().optional(),
  /**
   * Where the window came from: `config.json`, `mortar serve --context-window`, `default` (the
   * scripted model's 4,096), the model server that said (`<replica> GET /v1/models max_model_len`),
   * or `unknown`.
   */
  context_window_source: z.string(),
  /** The max_tokens Mortar sends when the client sends none; null: none is sent. */
  default_max_tokens: z.number().nullable(),
  /** The deployment serving it, or null when it is in the catalog but not deployed. */
  deployment: z.string().nullable(),
})
export type ModelObject = z.output<typeof modelObjectSchema>

export const modelListSchema = z.object({
  object: z.literal('list'),
  data: z.array(modelObjectSchema),
})
export type ModelList = z.output<typeof modelListSchema>
