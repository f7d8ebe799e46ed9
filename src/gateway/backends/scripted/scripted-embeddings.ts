import { invalidRequest } from '../../errors'
import { countInSlices } from '../../tokens/count-in-slices'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { EmbeddingsJob, EmbeddingsResult } from '../model-backend'
import { hashedEmbedding, SCRIPTED_EMBEDDING_DIMENSIONS } from './hashed-embedding'

/** The longest input the scripted model embeds, in tokens: OpenAI's limit for its embedding models. */
export const MAX_SCRIPTED_EMBEDDING_TOKENS = 8192

/**
 * The scripted model's POST /v1/embeddings: each input's tokens (the model's own tokenizer, or
 * the ids the client sent) as a hashed bag, `dimensions` wide (384 unless asked). Text is
 * tokenized in slices that yield to the event loop, each only as far as the limit, so a body of
 * megabytes delays other streams by milliseconds; an input over the limit is refused with 400
 * `context_length_exceeded`, naming it.
 */
export async function scriptedEmbeddings(tokenizer: Tokenizer, job: EmbeddingsJob): Promise<EmbeddingsResult> {
  const { inputs, dimensions = SCRIPTED_EMBEDDING_DIMENSIONS } = job.request
  const vectors: Float32Array[] = []
  let promptTokens = 0
  for (const [index, input] of inputs.entries()) {
    let ids: readonly number[]
    if (typeof input === 'string') {
      const found: number[] = []
      await countInSlices([tokenizer.startCount(input, found)], 0, MAX_SCRIPTED_EMBEDDING_TOKENS)
      ids = found
    } else {
      ids = input
    }
    if (ids.length > MAX_SCRIPTED_EMBEDDING_TOKENS) {
      // Counting stopped past the limit: a text's full count is not known, only that it is over.
      const has = typeof input === 'string' ? `more than ${MAX_SCRIPTED_EMBEDDING_TOKENS}` : String(ids.length)
      throw invalidRequest(
        `This model's maximum input length is ${MAX_SCRIPTED_EMBEDDING_TOKENS} tokens, and input[${index}] has ${has}: split it into smaller pieces.`,
        inputs.length === 1 ? 'input' : `input[${index}]`,
        'context_length_exceeded',
      )
    }
    // A client that left is not kept waiting for: the rest is not worth computing.
    if (job.signal.aborted) return { vectors: [], promptTokens, usageSource: 'estimate' }
    promptTokens += ids.length
    vectors.push(hashedEmbedding(ids, dimensions))
  }
  return { vectors, promptTokens, usageSource: 'estimate' }
}
