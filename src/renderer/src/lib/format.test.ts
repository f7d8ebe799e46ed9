import { describe, expect, it } from 'vitest'
import { formatCost, formatDelta, formatMs, formatRate, splitLineEnds } from './format'

describe('splitLineEnds', () => {
  it('shows every CR and LF of a raw frame, and loses no text', () => {
    expect(splitLineEnds('data: x\r\n\r\n')).toEqual([{ text: 'data: x' }, { eol: 'CR' }, { eol: 'LF' }, { eol: 'CR' }, { eol: 'LF' }])
    expect(splitLineEnds(': ping\n\n')).toEqual([{ text: ': ping' }, { eol: 'LF' }, { eol: 'LF' }])
    expect(splitLineEnds('data: {"a":"b\\nc"}')).toEqual([{ text: 'data: {"a":"b\\nc"}' }])
    expect(splitLineEnds('')).toEqual([])
  })
})

describe('number formats', () => {
  it('reads as people expect', () => {
    expect(formatMs(null)).toBe('—')
    expect(formatMs(3.14159)).toBe('3.14 ms')
    expect(formatMs(46.84)).toBe('46.8 ms')
    expect(formatMs(1234)).toBe('1.23 s')
    expect(formatDelta(12.345)).toBe('+12.3')
    expect(formatRate(null)).toBe('—')
    expect(formatRate(34.84)).toBe('34.8 tok/s')
    expect(formatCost(null)).toBe('—')
    expect(formatCost(0.000123)).toBe('$0.000123')
    expect(formatCost(0.5)).toBe('$0.5000')
  })
})
