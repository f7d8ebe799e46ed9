import { z } from 'zod'
import { DEFAULT_MODEL_ID, optional } from './chat-request'
import { firstIssue, invalidFieldMessage } from './first-issue'

/**
 * The contract of POST /v1/embeddings, OpenAI's shape (docs/embeddings.md): the request schema,
 * its limits and the reply. One definition for the gateway that answers and the inspector that
 * shows the exchange. Unknown fields are stripped from the parsed request (a forwarding deployment
 * passes them on as sent, as chat completions do).
 */

/** OpenAI's own limit on inputs per request. */
export const MAX_EMBEDDING_INPUTS = 2048
/** Token ids are what a tokenizer's vocabulary numbers: non-negative, and well inside 32 bits. */
export const MAX_TOKEN_ID = 2 ** 31 - 1
/** `dimensions` above this is refused before any model sees it (the largest common embedding is 4,096 wide). */
export const MAX_EMBEDDING_DIMENSIONS = 8192

export const ENCODING_FORMATS = ['float', 'base64'] as const
export type EncodingFormat = (typeof ENCODING_FORMATS)[number]

export const embeddingsRequestSchema = z.object(
  {
    model: optional(z.string({ error: 'must be a string' })),
    // Checked by hand (`inputsOf`): a union's error would not say which entry is wrong, or why.
    input: z.unknown().optional(),
    encoding_format: optional(z.enum(ENCODING_FORMATS, { error: "must be 'float' or 'base64'" })),
    dimensions: optional(
      z
        .number({ error: 'must be a positive whole number' })
        .refine((n) => Number.isInteger(n) && n > 0 && n <= MAX_EMBEDDING_DIMENSIONS, {
          error: `must be a whole number from 1 to ${MAX_EMBEDDING_DIMENSIONS}`,
        }),
    ),
    user: optional(z.string({ error: 'must be a string' })),
  },
  { error: 'The request body must be a JSON object' },
)

/** Each input as the model reads it: text, or token ids a client tokenized itself. */
export type EmbeddingInput = string | readonly number[]

/** The request as the gateway uses it: one list of inputs, defaults applied. */
export interface EmbeddingsRequest {
  model: string
  inputs: EmbeddingInput[]
  encodingFormat: EncodingFormat
  dimensions: number | undefined
  user: string | undefined
  /** Fields the contract does not name; a deployment that forwards passes them on as sent. */
  extraFields: Record<string, unknown>
}

const CONTRACT_FIELDS = new Set(['model', 'input', 'encoding_format', 'dimensions', 'user'])

export type EmbeddingsParse = { ok: true; request: EmbeddingsRequest } | { ok: false; param: string | null; message: string }

export function parseEmbeddingsRequest(json: unknown): EmbeddingsParse {
  const result = embeddingsRequestSchema.safeParse(json)
  if (!result.success) {
    const first = firstIssue(result.error)
    return { ok: false, param: first.param, message: invalidFieldMessage(first) }
  }
  const body = result.data
  const inputs = inputsOf(body.input)
  if (!Array.isArray(inputs)) return { ok: false, ...inputs }
  const extraFields: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(json as Record<string, unknown>)) if (!CONTRACT_FIELDS.has(key)) extraFields[key] = value
  return {
    ok: true,
    request: {
      model: body.model ?? DEFAULT_MODEL_ID,
      inputs,
      encodingFormat: body.encoding_format ?? 'float',
      dimensions: body.dimensions,
      user: body.user,
      extraFields,
    },
  }
}

const INPUT_KINDS = 'a string, an array of strings, a token array (numbers) or an array of token arrays'

/**
 * `input` as a list of inputs: a string, a token array, or an array of either (not mixed). An
 * empty string or token array is refused, as OpenAI does: there is nothing to embed.
 */
function inputsOf(input: unknown): EmbeddingInput[] | { param: string; message: string } {
  const refuse = (param: string, detail: string) => ({ param, message: `Invalid \`${param}\`: ${detail}.` })
  if (input === undefined) return refuse('input', `is required: ${INPUT_KINDS}`)
  if (typeof input === 'string') return input === '' ? refuse('input', 'must not be empty') : [input]
  if (!Array.isArray(input)) return refuse('input', `must be ${INPUT_KINDS}`)
  if (input.length === 0) return refuse('input', 'must not be empty')
  if (typeof input[0] === 'number') {
    const bad = input.findIndex((id) => !isTokenId(id))
    return bad === -1 ? [input as number[]] : refuse(`input[${bad}]`, TOKEN_ID_DETAIL)
  }
  if (input.length > MAX_EMBEDDING_INPUTS) return refuse('input', `must have at most ${MAX_EMBEDDING_INPUTS} entries`)
  const kind = Array.isArray(input[0]) ? 'tokens' : 'text'
  for (const [i, entry] of input.entries()) {
    if (kind === 'text') {
      if (typeof entry !== 'string') return refuse(`input[${i}]`, 'must be a string, as every entry must be when the first is')
      if (entry === '') return refuse(`input[${i}]`, 'must not be empty')
      continue
    }
    if (!Array.isArray(entry)) return refuse(`input[${i}]`, 'must be a token array, as every entry must be when the first is')
    if (entry.length === 0) return refuse(`input[${i}]`, 'must not be empty')
    const bad = entry.findIndex((id) => !isTokenId(id))
    if (bad !== -1) return refuse(`input[${i}][${bad}]`, TOKEN_ID_DETAIL)
  }
  return input as EmbeddingInput[]
}

const TOKEN_ID_DETAIL = `must be a token id (a whole number from 0 to ${MAX_TOKEN_ID})`

function isTokenId(value: unknown): boolean {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_TOKEN_ID
}

export interface EmbeddingObject {
  object: 'embedding'
  index: number
  /** Float numbers, or (`encoding_format: "base64"`) the little-endian float32 bytes in base64. */
  embedding: number[] | string
}

export interface EmbeddingList {
  object: 'list'
  data: EmbeddingObject[]
  model: string
  usage: { prompt_tokens: number; total_tokens: number }
}

/** A vector as `encoding_format: "base64"` sends it: its float32 values, little-endian, in base64 (what the openai SDK decodes). */
export function float32ToBase64(vector: Float32Array): string {
  const bytes = new Uint8Array(vector.length * 4)
  const view = new DataView(bytes.buffer)
  vector.forEach((value, i) => view.setFloat32(i * 4, value, true))
  let binary = ''
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
  return btoa(binary)
}

/** The inverse of `float32ToBase64`; undefined when the text is not base64 of whole float32 values. */
export function base64ToFloat32(encoded: string): Float32Array | undefined {
  let binary: string
  try {
    binary = atob(encoded)
  } catch {
    return undefined
  }
  if (binary.length % 4 !== 0) return undefined
  const view = new DataView(new ArrayBuffer(binary.length))
  for (let i = 0; i < binary.length; i++) view.setUint8(i, binary.charCodeAt(i))
  const vector = new Float32Array(binary.length / 4)
  for (let i = 0; i < vector.length; i++) vector[i] = view.getFloat32(i * 4, true)
  return vector
}
