import { describe, expect, it } from 'vitest'
import { splitInlineCode } from './inline-code'

describe('splitInlineCode', () => {
  it('turns backtick pairs into code spans and keeps the text around them', () => {
    expect(splitInlineCode('Incorrect API key provided. Create one with `mortar keys create`.')).toEqual([
      { text: 'Incorrect API key provided. Create one with ', code: false },
      { text: 'mortar keys create', code: true },
      { text: '.', code: false },
    ])
  })

  it('handles several spans, spans at the edges, and empty pairs', () => {
    expect(splitInlineCode('`a` and `b``')).toEqual([
      { text: 'a', code: true },
      { text: ' and ', code: false },
      { text: 'b', code: true },
      { text: '`', code: false },
    ])
    expect(splitInlineCode('x `` y')).toEqual([
      { text: 'x ', code: false },
      { text: ' y', code: false },
    ])
  })

  it('keeps an unpaired backtick and plain text as they are', () => {
    expect(splitInlineCode('no code here')).toEqual([{ text: 'no code here', code: false }])
    expect(splitInlineCode('it`s')).toEqual([{ text: 'it`s', code: false }])
    expect(splitInlineCode('')).toEqual([])
  })
})
