import { z } from 'zod'
import { usageSchema } from '../../../../shared/api/chat-response'
import { readText } from './stream-chunk'

// Reply bodies that are not a stream, as the inspector reads them: parsed rather than cast. Like a
// stream's chunks (stream-chunk.ts), a body may be a model server's as well as Mortar's, so every
// field the inspector shows is optional, and a field of an unexpected type reads as absent
// (`.catch`) instead of making the whole body unreadable.

const completionToolCallSchema = z.looseObject({
  id: readText,
  type: readText,
  function: z.looseObject({ name: readText, arguments: readText }).nullish().catch(undefined),
})

const completionChoiceSchema = z.looseObject({
  message: z.looseObject({
    role: readText,
    content: readText,
    reasoning_content: readText,
    tool_calls: z.array(completionToolCallSchema.catch({})).nullish().catch(undefined),
  }),
  finish_reason: readText,
})

/** A chat completion (`choices[0].message`); a body without a first choice's message is none. */
export const completionBodySchema = z.looseObject({
  id: readText,
  model: readText,
  choices: z.tuple([completionChoiceSchema], z.unknown()),
  usage: usageSchema.nullish().catch(undefined),
})
export type CompletionBody = z.output<typeof completionBodySchema>

/** A completions reply (`choices[0].text`); a body without a first choice is none. */
export const textCompletionBodySchema = z.looseObject({
  id: readText,
  model: readText,
  choices: z.tuple([z.looseObject({ text: readText, finish_reason: readText })], z.unknown()),
  usage: usageSchema.nullish().catch(undefined),
})
export type TextCompletionBody = z.output<typeof textCompletionBodySchema>

/** A content or summary part of a Responses output item: its text, or '' when it has none. */
const partsSchema = z.array(z.looseObject({ text: z.string().catch('') }).catch({ text: '' })).catch([])

/** An output item (or a streamed `output_item.added` event's `item`). */
export const responseItemSchema = z.looseObject({
  type: readText,
  content: partsSchema,
  summary: partsSchema,
  call_id: readText,
  name: readText,
  arguments: readText,
})

/** The Responses API's usage, read as the chat usage the inspector shows; absent when it is none. */
export const responsesUsageSchema = z.looseObject({
  input_tokens: z.number(),
  output_tokens: z.number(),
  total_tokens: z.number().optional().catch(undefined),
  input_tokens_details: z.record(z.string(), z.unknown()).optional().catch(undefined),
})

/** A Responses API response object; an output entry that is not an object reads as null. */
export const responseBodySchema = z.looseObject({
  id: readText,
  model: readText,
  status: readText,
  output: z.array(responseItemSchema.nullable().catch(null)).catch([]),
  incomplete_details: z.looseObject({ reason: readText }).nullish().catch(undefined),
  error: z.looseObject({ message: readText }).nullish().catch(undefined),
  usage: responsesUsageSchema.nullish().catch(undefined),
})
export type ResponseBody = z.output<typeof responseBodySchema>

/** What a reader takes of a Responses object that is not one: nothing. */
const NO_RESPONSE_BODY: ResponseBody = { output: [] }

/** A Responses object as far as `value` is one (a streamed event's `response`). */
export function readResponseBody(value: unknown): ResponseBody {
  const parsed = responseBodySchema.safeParse(value)
  return parsed.success ? parsed.data : NO_RESPONSE_BODY
}

/** An embeddings list: a non-empty `data` of objects that each have an `embedding`. */
export const embeddingsBodySchema = z.looseObject({
  data: z.array(z.record(z.string(), z.unknown()).refine((item) => 'embedding' in item)).min(1),
  model: readText,
  usage: z.looseObject({ prompt_tokens: z.number().optional().catch(undefined) }).nullish().catch(undefined),
})
