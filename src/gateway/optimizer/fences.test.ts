import { describe, expect, it } from 'vitest'
import { findFencedBlocks, mayHoldFences } from './fences'

describe('findFencedBlocks', () => {
  it('finds closed blocks with their info string, body and extent', () => {
    const text = 'before\n```json title=x\n{"a": 1}\n```\nafter'
    const [block] = findFencedBlocks(text)
    expect(block).toEqual({ start: 7, bodyStart: 23, bodyEnd: 32, end: 35, info: 'json title=x', closed: true })
    expect(text.slice(block!.bodyStart, block!.bodyEnd)).toBe('{"a": 1}\n')
    expect(text.slice(block!.start, block!.end)).toBe('```json title=x\n{"a": 1}\n```')
  })

  it('follows CommonMark: tildes, longer fences, up to three spaces of indentation, CRLF', () => {
    expect(findFencedBlocks('~~~\na\n~~~').map((b) => b.closed)).toEqual([true])
    // A shorter or different fence does not close; a longer one does.
    const nested = '````md\n```json\n{}\n```\n`````\n'
    expect(findFencedBlocks(nested)).toHaveLength(1)
    expect(findFencedBlocks(nested)[0]!.info).toBe('md')
    expect(findFencedBlocks('~~~\n```\n~~~')[0]!.bodyEnd).toBe(8)
    expect(findFencedBlocks('   ```\nx\n   ```')).toHaveLength(1)
    expect(findFencedBlocks('    ```\nx\n```')).toHaveLength(1) // 4 spaces: not an opener; the last line opens one
    expect(findFencedBlocks('    ```\nx\n```')[0]!.closed).toBe(false)
    const crlf = '```json\r\n[1, 2]\r\n```\r\n'
    const [block] = findFencedBlocks(crlf)
    expect(crlf.slice(block!.bodyStart, block!.bodyEnd)).toBe('[1, 2]\r\n')
    expect(block!.info).toBe('json')
  })

  it('a backtick fence may not have a backtick in its info string; a closing fence has no info', () => {
    expect(findFencedBlocks('``` a`b\nx\n```')).toHaveLength(1) // the last line opens an unclosed block
    expect(findFencedBlocks('``` a`b\nx\n```')[0]!.closed).toBe(false)
    expect(findFencedBlocks('```\nx\n``` not a close\n```')[0]!.bodyEnd).toBe(22)
  })

  it('an unclosed block runs to the end of the text', () => {
    expect(findFencedBlocks('a\n```json\n{"a": 1}\n')).toEqual([
      { start: 2, bodyStart: 10, bodyEnd: 19, end: 19, info: 'json', closed: false },
    ])
  })

  it('inline backticks are not fences', () => {
    expect(mayHoldFences('use `x` here')).toBe(false)
    expect(findFencedBlocks('say ```json``` inline')).toEqual([])
  })
})
