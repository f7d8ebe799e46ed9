// An embeddings reply (POST /v1/embeddings) as the inspector shows it: how many vectors, how wide,
// in which encoding, and the first few values of the first few — never every number, since a reply
// of thousands of vectors is megabytes of digits that no one reads and a page would choke on.
import { base64ToFloat32 } from '../../../../shared/api/embeddings'
import { embeddingsBodySchema } from './reply-bodies'

/** Vectors listed, and values shown of each: enough to tell them apart at a glance. */
export const SHOWN_VECTORS = 16
export const SHOWN_VALUES = 6

export interface EmbeddingRow {
  index: number
  /** The vector's length; null when its embedding is neither numbers nor base64 float32. */
  dimensions: number | null
  /** The first values, rounded for reading. */
  head: number[]
  /** Its Euclidean length: 1 for a normalized embedding. */
  norm: number | null
  /** How many of its values are not 0 (a hashed bag of a few tokens, as the scripted model's, has few). */
  nonZero: number | null
}

export interface EmbeddingsSummary {
  model: string | null
  count: number
  encoding: 'float' | 'base64' | 'mixed'
  /** The width every vector shares, or null when they differ. */
  dimensions: number | null
  promptTokens: number | null
  rows: EmbeddingRow[]
}

/** The summary of a JSON body that is an embeddings list; null for any other body (or one cut short by capture). */
export function summarizeEmbeddings(body: string | null): EmbeddingsSummary | null {
  if (body === null || !body.includes('"embedding"')) return null
  let parsed: unknown
  try {
    parsed = JSON.parse(body)
  } catch {
    return null
  }
  const list = embeddingsBodySchema.safeParse(parsed)
  if (!list.success) return null
  const { data: items, model, usage } = list.data
  const encodings = new Set(items.map((item) => (typeof item.embedding === 'string' ? 'base64' : 'float')))
  const widths = new Set(items.map((item) => widthOf(item.embedding)))
  const [width] = widths
  return {
    model: model ?? null,
    count: items.length,
    encoding: encodings.size > 1 ? 'mixed' : encodings.has('base64') ? 'base64' : 'float',
    dimensions: widths.size === 1 && width !== undefined ? width : null,
    promptTokens: usage?.prompt_tokens ?? null,
    rows: items.slice(0, SHOWN_VECTORS).map((item, position) => rowOf(item.embedding, typeof item.index === 'number' ? item.index : position)),
  }
}

function vectorOf(embedding: unknown): ArrayLike<number> | undefined {
  if (typeof embedding === 'string') return base64ToFloat32(embedding)
  return isNumbers(embedding) ? embedding : undefined
}

const isNumbers = (value: unknown): value is number[] => Array.isArray(value) && value.every((item) => typeof item === 'number')

function widthOf(embedding: unknown): number | null {
  // A base64 vector's width is its bytes / 4, known without decoding all of it.
  if (typeof embedding === 'string') return embedding.length % 4 === 0 ? ((embedding.length / 4) * 3 - padding(embedding)) / 4 : null
  return Array.isArray(embedding) ? embedding.length : null
}

function padding(base64: string): number {
  return base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0
}

function rowOf(embedding: unknown, index: number): EmbeddingRow {
  const vector = vectorOf(embedding)
  if (vector === undefined) return { index, dimensions: null, head: [], norm: null, nonZero: null }
  let squares = 0
  let nonZero = 0
  for (let i = 0; i < vector.length; i++) {
    squares += vector[i]! * vector[i]!
    if (vector[i] !== 0) nonZero++
  }
  return {
    index,
    dimensions: vector.length,
    head: Array.from({ length: Math.min(SHOWN_VALUES, vector.length) }, (_, i) => Math.round(vector[i]! * 1e4) / 1e4),
    norm: Math.round(Math.sqrt(squares) * 1e4) / 1e4,
    nonZero,
  }
}
