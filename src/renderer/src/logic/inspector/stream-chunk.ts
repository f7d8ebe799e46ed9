import { z } from 'zod'
import { usageSchema } from '../../../../shared/api/chat-response'

// What the inspector reads from a chunk, parsed rather than cast. The inspector shows model
// servers' frames as well as Mortar's, and they differ (null for absent fields, `reasoning`
// instead of `reasoning_content`, pieces without an index, `usage: null`): every field is
// optional, and a field of an unexpected type reads as absent (`.catch`) instead of making the
// whole chunk unreadable — the anomalies list and the frame summary say what was odd.

/** A text field as the inspector reads it: a string, or absent (null, missing or of another type). */
export const readText = z.string().nullish().catch(undefined)
const text = readText

const toolPieceSchema = z.looseObject({
  index: z.number().optional().catch(undefined),
  id: text,
  type: text,
  function: z.looseObject({ name: text, arguments: text }).nullish().catch(undefined),
})

const deltaSchema = z.looseObject({
  role: text,
  content: text,
  reasoning_content: text,
  /** Ollama's and LM Studio's name for reasoning_content. */
  reasoning: text,
  tool_calls: z.array(toolPieceSchema.catch({})).nullish().catch(undefined),
})

const choiceSchema = z.looseObject({
  delta: deltaSchema.nullish().catch(undefined),
  /** A `text_completion` chunk's (POST /v1/completions) piece of the text: it has no delta. */
  text,
  finish_reason: text,
})

export const streamChunkSchema = z.looseObject({
  id: text,
  model: text,
  choices: z.array(choiceSchema.catch({})),
  usage: usageSchema.nullish().catch(undefined),
})

export type StreamChunk = z.output<typeof streamChunkSchema>
/** A tool-call piece; anything that is not one reads as a piece with no fields. */
export const streamToolPieceSchema = toolPieceSchema.catch({})

/** An error event's or error body's `error` object, as far as it has the envelope's fields. */
export interface ReadError {
  message: string
  type: string | null
  code: string | null
  param: string | null
}

const envelopeSchema = z.looseObject({ error: z.looseObject({ message: text, type: text, code: text, param: text }) })

/** `{"error": {…}}` → its error, field by field; null when `value` is no such envelope. */
export function readErrorEnvelope(value: unknown): ReadError | null {
  const parsed = envelopeSchema.safeParse(value)
  if (!parsed.success) return null
  const { message, type, code, param } = parsed.data.error
  return { message: message ?? '', type: type ?? null, code: code ?? null, param: param ?? null }
}
