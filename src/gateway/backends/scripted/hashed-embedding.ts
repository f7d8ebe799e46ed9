import { mix32 } from '../../mix32'

/**
 * The scripted model's embeddings (docs/embeddings.md): a hashed bag of tokens. Each token id
 * adds ±1 to one of `dimensions` buckets — both the bucket and the sign come from hashing the id —
 * and the sum is scaled to unit length. So texts that share most of their tokens point the same
 * way (a near-duplicate has a high cosine, an unrelated text one near 0), the same tokens always
 * give the same vector on every machine, and word order does not matter. The signs keep unrelated
 * tokens that share a bucket from adding up into a false likeness.
 */

/** The width when the request sets no `dimensions`: that of the small sentence-embedding models (all-MiniLM-L6-v2, bge-small). */
export const SCRIPTED_EMBEDDING_DIMENSIONS = 384

export function hashedEmbedding(tokenIds: readonly number[], dimensions: number): Float32Array {
  const sums = new Float64Array(dimensions)
  for (const id of tokenIds) {
    const hash = mix32(id)
    sums[hash % dimensions]! += (mix32(id ^ SIGN_SEED) & 1) === 0 ? 1 : -1
  }
  let squares = 0
  for (const value of sums) squares += value * value
  const vector = new Float32Array(dimensions)
  // Tokens whose ±1s cancel out leave nothing to point with: the first axis stands in, so the
  // vector is still of unit length (every client divides by the norm).
  if (squares === 0) {
    vector[0] = 1
    return vector
  }
  const norm = Math.sqrt(squares)
  for (let i = 0; i < dimensions; i++) vector[i] = sums[i]! / norm
  return vector
}

const SIGN_SEED = 0x9e3779b9
