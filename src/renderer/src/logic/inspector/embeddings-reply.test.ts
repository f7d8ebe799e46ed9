import { describe, expect, it } from 'vitest'
import { float32ToBase64 } from '../../../../shared/api/embeddings'
import { SHOWN_VALUES, SHOWN_VECTORS, summarizeEmbeddings } from './embeddings-reply'
import { RAW_BODY_SHOWN_CHARS, rawBodyShown } from './raw-body'

const list = (embeddings: unknown[]) =>
  JSON.stringify({ object: 'list', data: embeddings.map((embedding, index) => ({ object: 'embedding', index, embedding })), model: 'm', usage: { prompt_tokens: 7, total_tokens: 7 } })

describe('summarizeEmbeddings', () => {
  it('float vectors: count, width, the first values and each norm', () => {
    const summary = summarizeEmbeddings(list([[0.6, 0.8, 0, 0, 0, 0, 0, 0], [1, 0, 0, 0, 0, 0, 0, 0]]))
    expect(summary).toEqual({
      model: 'm',
      count: 2,
      encoding: 'float',
      dimensions: 8,
      promptTokens: 7,
      rows: [
        { index: 0, dimensions: 8, head: [0.6, 0.8, 0, 0, 0, 0], norm: 1, nonZero: 2 },
        { index: 1, dimensions: 8, head: [1, 0, 0, 0, 0, 0], norm: 1, nonZero: 1 },
      ],
    })
  })

  it('base64 vectors are decoded for their values, and sized without decoding', () => {
    const vector = Float32Array.from({ length: 384 }, (_, i) => (i === 0 ? 1 : 0))
    const summary = summarizeEmbeddings(list([float32ToBase64(vector), float32ToBase64(Float32Array.from([0.5, 0.5, 0.5]))]))
    expect(summary).toMatchObject({ encoding: 'base64', dimensions: null, count: 2 })
    expect(summary?.rows[0]).toEqual({ index: 0, dimensions: 384, head: [1, 0, 0, 0, 0, 0], norm: 1, nonZero: 1 })
    expect(summary?.rows[1]).toEqual({ index: 1, dimensions: 3, head: [0.5, 0.5, 0.5], norm: 0.866, nonZero: 3 })
  })

  it('lists only the first vectors of a large reply', () => {
    const summary = summarizeEmbeddings(list(Array.from({ length: 2048 }, () => Array(384).fill(0.05))))
    expect(summary?.count).toBe(2048)
    expect(summary?.rows).toHaveLength(SHOWN_VECTORS)
    expect(summary?.rows[0]?.head).toHaveLength(SHOWN_VALUES)
  })

  it('is null for anything else: a chat completion, an error, a body cut short', () => {
    expect(summarizeEmbeddings(JSON.stringify({ object: 'chat.completion', choices: [] }))).toBeNull()
    expect(summarizeEmbeddings(JSON.stringify({ error: { message: 'no' } }))).toBeNull()
    expect(summarizeEmbeddings(list([[1, 2, 3]]).slice(0, 40))).toBeNull()
    expect(summarizeEmbeddings(null)).toBeNull()
  })
})

describe('rawBodyShown', () => {
  it('shows a long body up to the limit unless all is asked for', () => {
    const long = 'x'.repeat(RAW_BODY_SHOWN_CHARS + 10)
    expect(rawBodyShown(long, false)).toEqual({ shown: long.slice(0, RAW_BODY_SHOWN_CHARS), hidden: 10 })
    expect(rawBodyShown(long, true)).toEqual({ shown: long, hidden: 0 })
    expect(rawBodyShown('short', false)).toEqual({ shown: 'short', hidden: 0 })
  })
})
