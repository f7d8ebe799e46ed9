import { describe, expect, it } from 'vitest'
import { diffLines, foldUnchanged, hasChanges, prettyJsonText } from './line-diff'

const ops = (before: string, after: string) => diffLines(before, after).map((line) => `${line.op[0]}${line.text}`)

describe('diffLines', () => {
  it('marks nothing when the texts are equal', () => {
    expect(hasChanges(diffLines('a\nb', 'a\nb'))).toBe(false)
  })

  it('finds a changed line between equal ones', () => {
    expect(ops('a\nb\nc', 'a\nB\nc')).toEqual(['sa', 'rb', 'aB', 'sc'])
  })

  it('finds lines removed and added in the middle, keeping what both have', () => {
    expect(ops('1\n2\n3\n4\n5', '1\n3\nx\n4\n5')).toEqual(['s1', 'r2', 's3', 'ax', 's4', 's5'])
  })

  it('handles one side empty', () => {
    expect(ops('', 'a')).toEqual(['r', 'aa'])
    expect(ops('a\nb', 'a\nb\nc')).toEqual(['sa', 'sb', 'ac'])
  })

  it('shows a middle too large to diff as removed then added, and still keeps the common head and tail', () => {
    const big = (tag: string) => Array.from({ length: 2_100 }, (_, i) => `${tag}${i}`).join('\n')
    const lines = diffLines(`head\n${big('a')}\ntail`, `head\n${big('b')}\ntail`)
    expect(lines[0]).toEqual({ op: 'same', text: 'head' })
    expect(lines.at(-1)).toEqual({ op: 'same', text: 'tail' })
    expect(lines.filter((l) => l.op === 'removed')).toHaveLength(2_100)
    expect(lines.filter((l) => l.op === 'added')).toHaveLength(2_100)
  })
})

describe('foldUnchanged', () => {
  it('folds long unchanged runs and keeps context around changes', () => {
    const before = Array.from({ length: 20 }, (_, i) => `l${i}`).join('\n')
    const after = before.replace('l10', 'L10')
    const folded = foldUnchanged(diffLines(before, after), 2)
    expect(folded.map((l) => (l.op === 'gap' ? `…${l.count}` : `${l.op[0]}${l.text}`))).toEqual(['…8', 'sl8', 'sl9', 'rl10', 'aL10', 'sl11', 'sl12', '…7'])
  })
})

describe('prettyJsonText', () => {
  it('re-indents JSON and leaves other text alone', () => {
    expect(prettyJsonText('{"a":[1]}')).toBe('{\n  "a": [\n    1\n  ]\n}')
    expect(prettyJsonText('{oops')).toBe('{oops')
  })
})
