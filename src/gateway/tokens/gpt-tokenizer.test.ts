import { describe, expect, it } from 'vitest'
import { o200kTokenizer } from './gpt-tokenizer'

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

  it('never counts more tokens than UTF-8 bytes', () => {
    for (const text of ['plain', '你好世界', '🌍🚀', ' '.repeat(100), '<|endoftext|>']) {
      expect(o200kTokenizer.count(text)).toBeLessThanOrEqual(o200kTokenizer.upperBound!(text))
    }
  })
})
