import { describe, expect, it } from 'vitest'
import { parseOptimizerReport, parseToolSelectorReport } from './mortar-reports'

describe('parseOptimizerReport', () => {
  it('reads every field of a full report', () => {
    const report = parseOptimizerReport(
      'ruleset=2; mode=on; bytes=10001; saved=2212; passes=json-compact/3,json-tool-blocks/1; elapsed_us=49',
    )
    expect(report).toEqual({
      ruleset: 2,
      mode: 'on',
      bytes: 10001,
      saved: 2212,
      savedPercent: (2212 / 10001) * 100,
      passes: [
        { name: 'json-compact', count: 3 },
        { name: 'json-tool-blocks', count: 1 },
      ],
      elapsedMicros: 49,
      other: {},
      unparsed: [],
    })
  })

  it('reads the off report, which has no other fields', () => {
    const report = parseOptimizerReport('ruleset=2; mode=off')
    expect(report.mode).toBe('off')
    expect(report.ruleset).toBe(2)
    expect(report.passes).toEqual([])
    expect(report.bytes).toBeNull()
    expect(report.savedPercent).toBeNull()
  })

  it('keeps passes that ran with nothing to do', () => {
    expect(parseOptimizerReport('ruleset=2; mode=shadow; bytes=10; saved=0; passes=json-compact/0').passes).toEqual([
      { name: 'json-compact', count: 0 },
    ])
  })

  it('has no saved percentage for zero bytes', () => {
    expect(parseOptimizerReport('mode=shadow; bytes=0; saved=0').savedPercent).toBeNull()
  })

  it('tolerates spacing, case of keys and unknown or malformed fields', () => {
    const report = parseOptimizerReport(' RULESET=3 ;mode=on;; future=yes; junk; bytes=x; passes=a/1, b/oops ')
    expect(report.ruleset).toBe(3)
    expect(report.mode).toBe('on')
    expect(report.bytes).toBeNull()
    expect(report.other).toEqual({ future: 'yes' })
    expect(report.unparsed).toEqual(['junk', 'passes: b/oops'])
    expect(report.passes).toEqual([{ name: 'a', count: 1 }])
  })

  it('returns an empty report for an empty header', () => {
    const report = parseOptimizerReport('')
    expect(report.mode).toBeNull()
    expect(report.unparsed).toEqual([])
  })
})

describe('parseToolSelectorReport', () => {
  it('reads the named report the gateway writes', () => {
    expect(parseToolSelectorReport('mode=named; tools=12->1; tokens=1840->160; saved=1680')).toEqual({
      mode: 'named',
      toolsBefore: 12,
      toolsAfter: 1,
      tokensBefore: 1840,
      tokensAfter: 160,
      saved: 1680,
      other: {},
      unparsed: [],
    })
  })

  it('leaves malformed transitions unknown rather than guessing', () => {
    const report = parseToolSelectorReport('mode=named; tools=12-1; tokens=->5; extra=1')
    expect(report.toolsBefore).toBeNull()
    expect(report.toolsAfter).toBeNull()
    expect(report.tokensBefore).toBeNull()
    expect(report.saved).toBeNull()
    expect(report.other).toEqual({ extra: '1' })
  })
})
