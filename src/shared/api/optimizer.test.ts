import { describe, expect, it } from 'vitest'
import { OPTIMIZER_DEFAULT_PASSES, OPTIMIZER_PASSES, parseOptimizeHeader } from './optimizer'

describe('parseOptimizeHeader', () => {
  it('reads absent, off, on and pass lists', () => {
    expect(parseOptimizeHeader(undefined)).toEqual({ ok: true, value: { kind: 'default' } })
    expect(parseOptimizeHeader('off')).toEqual({ ok: true, value: { kind: 'off' } })
    expect(parseOptimizeHeader(' On ')).toEqual({ ok: true, value: { kind: 'on' } })
    expect(parseOptimizeHeader('collapse-spaces, JSON-TOOL-BLOCKS,collapse-spaces')).toEqual({
      ok: true,
      value: { kind: 'passes', passes: ['collapse-spaces', 'json-tool-blocks'] },
    })
  })

  it.each(['', ' ', 'true', 'on,json-compact', 'off,collapse-spaces', 'json-compact,,collapse-spaces', 'minify'])(
    'refuses %j with a message listing the accepted values',
    (raw) => {
      const parsed = parseOptimizeHeader(raw)
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) {
        expect(parsed.message).toContain("doesn't recognise")
        for (const name of OPTIMIZER_PASSES) expect(parsed.message).toContain(name)
      }
    },
  )

  it('quotes at most 100 characters of a refused value', () => {
    const parsed = parseOptimizeHeader('x'.repeat(5000))
    expect(!parsed.ok && parsed.message.length < 400).toBe(true)
  })

  it('the defaults are nameable passes', () => {
    for (const name of OPTIMIZER_DEFAULT_PASSES) expect(OPTIMIZER_PASSES).toContain(name)
  })
})
