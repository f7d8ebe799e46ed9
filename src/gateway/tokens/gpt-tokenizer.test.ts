import { describe, expect, it } from 'vitest'
import o200k from 'gpt-tokenizer/encoding/o200k_base'
import { O200K_LONGEST_TOKEN_BYTES, o200kTokenizer } from './gpt-tokenizer'
import { TOKEN_CORPUS } from './test-support/token-corpus'

describe('o200kTokenizer.decodePieces', () => {
  const samples = ['plain ascii text', '你好世界, Grüße', '🌍🚀👩‍👩‍👧', 'mixed 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 and \t tabs\n\nlines', '']
  it.each(samples)('loses neither text nor tokens: %j', (sample) => {
    const tokens = o200kTokenizer.encode(sample)
    const pieces = [...o200kTokenizer.decodePieces(tokens)]
    expect(pieces.map((p) => p.text).join('')).toBe(sample)
    expect(pieces.reduce((n, p) => n + p.tokens, 0)).toBe(tokens.length)
    // No piece carries half a character.
    for (const piece of pieces) expect(piece.text).not.toMatch(/\uFFFD/)
  })

  it('merges tokens that end inside a character, and only those', () => {
    const tokens = o200kTokenizer.encode('👩‍👩‍👧')
    const pieces = [...o200kTokenizer.decodePieces(tokens)]
    expect(pieces.length).toBeLessThan(tokens.length)
    expect(pieces.some((p) => p.tokens > 1)).toBe(true)
  })
})

describe('o200kTokenizer', () => {
  it("counts text that looks like OpenAI's special tokens as text, instead of throwing", () => {
    const text = 'a message quoting <|endoftext|> and <|im_start|>'
    expect(o200kTokenizer.count(text)).toBe(o200kTokenizer.encode(text).length)
    expect(o200kTokenizer.count(text)).toBeGreaterThan(4)
  })

  it('counts between the UTF-8 bytes and the bytes over the longest token (128)', () => {
    expect(O200K_LONGEST_TOKEN_BYTES).toBe(128)
    for (const text of ['plain', '你好世界', '🌍🚀', ' '.repeat(1_000), '<|endoftext|>', '='.repeat(3_000)]) {
      const bounds = o200kTokenizer.bounds!([text])
      expect(o200kTokenizer.count(text)).toBeLessThanOrEqual(bounds.upper)
      expect(o200kTokenizer.count(text)).toBeGreaterThanOrEqual(bounds.lower)
      // In two parts: the bounds of the joined text.
      const half = Math.floor(text.length / 2)
      expect(o200kTokenizer.bounds!([text.slice(0, half), text.slice(half)])).toEqual(bounds)
    }
    // A surrogate pair split between two parts: 4 bytes, as joined (not 3 for each half).
    expect(o200kTokenizer.bounds!(['a\ud83c', '\udf0d']).upper).toBe(5)
  })

  it("counts as gpt-tokenizer does, long pieces (merged here with a heap) included", () => {
    const texts = [
      ...Object.values(TOKEN_CORPUS),
      ' '.repeat(3_000) + 'x',
      'ab'.repeat(1_500),
      'Ünïcödé'.repeat(200),
      'x'.repeat(500) + ' '.repeat(700) + '\n\n  foo',
      '1234567890'.repeat(100),
      'https://example.com/' + 'a1b2c3'.repeat(300),
    ]
    for (const text of texts) {
      expect(o200kTokenizer.count(text)).toBe(o200k.countTokens(text, { disallowedSpecial: new Set() }))
      const ids: number[] = []
      const task = o200kTokenizer.startCount(text, ids)
      while (!task.advance(64));
      expect(task.count).toBe(o200kTokenizer.count(text))
      expect(ids).toEqual(o200kTokenizer.encode(text))
    }
  })

  it('counts 200 KB of spaces (one piece) in slices of bounded work', () => {
    const task = o200kTokenizer.startCount(' '.repeat(200_000))
    let advances = 1
    while (!task.advance(4_096)) advances++
    // 128-space tokens; gpt-tokenizer's own quadratic merge would not finish this for hours.
    expect(task.count).toBe(1_563)
    expect(advances).toBeGreaterThan(100)
  })
})
