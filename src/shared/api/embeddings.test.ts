import { describe, expect, it } from 'vitest'
import { base64ToFloat32, float32ToBase64, MAX_EMBEDDING_INPUTS, parseEmbeddingsRequest } from './embeddings'

const refusal = (body: unknown) => {
  const parsed = parseEmbeddingsRequest(body)
  if (parsed.ok) throw new Error('expected a refusal')
  return { param: parsed.param, message: parsed.message }
}

describe('parseEmbeddingsRequest', () => {
  it('takes each shape of input as a list of inputs', () => {
    const inputsOf = (input: unknown) => {
      const parsed = parseEmbeddingsRequest({ model: 'm', input })
      if (!parsed.ok) throw new Error(parsed.message)
      return parsed.request.inputs
    }
    expect(inputsOf('hello')).toEqual(['hello'])
    expect(inputsOf(['a', 'b'])).toEqual(['a', 'b'])
    expect(inputsOf([1, 2, 3])).toEqual([[1, 2, 3]])
    expect(inputsOf([[1, 2], [3]])).toEqual([[1, 2], [3]])
  })

  it('applies the defaults and keeps fields it does not name for a model server', () => {
    const parsed = parseEmbeddingsRequest({ input: 'x', encoding_format: null, truncate_prompt_tokens: 16 })
    expect(parsed).toEqual({
      ok: true,
      request: { model: 'Qwen/Qwen2.5-7B-Instruct', inputs: ['x'], encodingFormat: 'float', dimensions: undefined, user: undefined, extraFields: { truncate_prompt_tokens: 16 } },
    })
  })

  it('refuses what cannot be embedded, naming the entry', () => {
    expect(refusal({ model: 'm' })).toEqual({ param: 'input', message: 'Invalid `input`: is required: a string, an array of strings, a token array (numbers) or an array of token arrays.' })
    expect(refusal({ input: '' }).param).toBe('input')
    expect(refusal({ input: [] }).param).toBe('input')
    expect(refusal({ input: { text: 'x' } }).param).toBe('input')
    expect(refusal({ input: ['a', '', 'c'] })).toEqual({ param: 'input[1]', message: 'Invalid `input[1]`: must not be empty.' })
    expect(refusal({ input: ['a', 2] }).param).toBe('input[1]')
    expect(refusal({ input: [1, -2] }).param).toBe('input[1]')
    expect(refusal({ input: [1, 2.5] }).param).toBe('input[1]')
    expect(refusal({ input: [[1], [2, 'x']] }).param).toBe('input[1][1]')
    expect(refusal({ input: [[1], []] }).param).toBe('input[1]')
    expect(refusal({ input: [[1], 'a'] }).param).toBe('input[1]')
    expect(refusal({ input: Array(MAX_EMBEDDING_INPUTS + 1).fill('a') })).toEqual({ param: 'input', message: 'Invalid `input`: must have at most 2048 entries.' })
  })

  it('refuses bad options by name', () => {
    expect(refusal({ input: 'x', encoding_format: 'binary' })).toEqual({ param: 'encoding_format', message: "Invalid `encoding_format`: must be 'float' or 'base64'." })
    expect(refusal({ input: 'x', dimensions: 0 }).param).toBe('dimensions')
    expect(refusal({ input: 'x', dimensions: 1.5 }).param).toBe('dimensions')
    expect(refusal({ input: 'x', dimensions: 100_000 }).param).toBe('dimensions')
    expect(refusal({ input: 'x', model: 3 }).param).toBe('model')
    expect(refusal('x').param).toBe(null)
  })
})

describe('base64 vectors', () => {
  it('are the little-endian float32 bytes, as the openai SDK decodes them', () => {
    const vector = Float32Array.from([1, -0.5, 0.1, 3.25])
    const encoded = float32ToBase64(vector)
    expect(Array.from(atob(encoded), (char) => char.charCodeAt(0))).toEqual([0, 0, 0x80, 0x3f, 0, 0, 0, 0xbf, 0xcd, 0xcc, 0xcc, 0x3d, 0, 0, 0x50, 0x40])
    expect(base64ToFloat32(encoded)).toEqual(vector)
    const long = Float32Array.from({ length: 20_000 }, (_, i) => Math.sin(i))
    expect(base64ToFloat32(float32ToBase64(long))).toEqual(long)
  })

  it('decode to nothing when they are not whole float32 values', () => {
    expect(base64ToFloat32('AAA=')).toBeUndefined()
    expect(base64ToFloat32('not base64!')).toBeUndefined()
  })
})
