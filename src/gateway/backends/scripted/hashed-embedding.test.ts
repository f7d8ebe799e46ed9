import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokens/tokenizer-registry'
import { hashedEmbedding, SCRIPTED_EMBEDDING_DIMENSIONS } from './hashed-embedding'

const qwen = loadTokenizer('qwen2.5')
const embed = (text: string, dimensions = SCRIPTED_EMBEDDING_DIMENSIONS) => hashedEmbedding(qwen.encode(text), dimensions)
const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, value, i) => sum + value * b[i]!, 0)
const norm = (a: Float32Array) => Math.sqrt(dot(a, a))

describe('hashedEmbedding', () => {
  it('is a unit vector of the asked width', () => {
    for (const dimensions of [1, 7, 384, 1536]) {
      const vector = embed('The quick brown fox jumps over the lazy dog', dimensions)
      expect(vector).toHaveLength(dimensions)
      expect(norm(vector)).toBeCloseTo(1, 5)
    }
  })

  it('is the same vector for the same tokens, every time', () => {
    const first = embed('function add(a, b) { return a + b }')
    expect(embed('function add(a, b) { return a + b }')).toEqual(first)
    expect(hashedEmbedding(qwen.encode('function add(a, b) { return a + b }'), 384)).toEqual(first)
    // A fixed point, so a change of the hash (which would move every stored index) is seen.
    expect(Array.from(hashedEmbedding([0, 1, 2, 3], 8), (v) => Math.round(v * 1000) / 1000)).toEqual([0.408, 0, 0, 0, 0, 0, -0.408, -0.816])
  })

  it('puts near-duplicates close together and unrelated texts apart', () => {
    const pairs: Array<[string, string, string]> = [
      ['The quick brown fox jumps over the lazy dog.', 'The quick brown fox jumped over the lazy dog!', 'Quarterly revenue grew twelve percent in Europe.'],
      [
        'export function parseConfig(path: string): Config { return JSON.parse(readFileSync(path, "utf8")) }',
        'export function parseConfig(file: string): Config { return JSON.parse(readFileSync(file, "utf8")) }',
        'SELECT name, email FROM users WHERE created_at > NOW() - INTERVAL 7 DAY ORDER BY name;',
      ],
    ]
    for (const [text, nearDuplicate, unrelated] of pairs) {
      const near = dot(embed(text), embed(nearDuplicate))
      const far = dot(embed(text), embed(unrelated))
      expect(near).toBeGreaterThan(0.7)
      expect(Math.abs(far)).toBeLessThan(0.35)
      expect(near).toBeGreaterThan(far + 0.4)
    }
  })

  it('stays a unit vector when the tokens cancel out', () => {
    // One bucket, so tokens of opposite signs meet: find two that cancel.
    const plus = [...Array(64).keys()].find((id) => hashedEmbedding([id], 1)[0] === 1)!
    const minus = [...Array(64).keys()].find((id) => hashedEmbedding([id], 1)[0] === -1)!
    const vector = hashedEmbedding([plus, minus], 1)
    expect(Array.from(vector)).toEqual([1])
  })
})
