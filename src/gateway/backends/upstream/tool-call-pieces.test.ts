import { describe, expect, it } from 'vitest'
import { ToolCallPieces } from './tool-call-pieces'

describe('ToolCallPieces', () => {
  it('passes OpenAI-shaped pieces on as they are', () => {
    const pieces = new ToolCallPieces()
    expect(pieces.piece({ index: 0, id: 'call_a', type: 'function', function: { name: 'f', arguments: '' } }, 0)).toEqual({
      index: 0,
      id: 'call_a',
      type: 'function',
      function: { name: 'f', arguments: '' },
    })
    expect(pieces.piece({ index: 0, function: { arguments: '{}' } }, 0)).toEqual({ index: 0, function: { arguments: '{}' } })
    expect(pieces.madeCalls).toBe(true)
  })

  it('infers a missing index by id, then by position (Ollama 2024)', () => {
    const pieces = new ToolCallPieces()
    const a = pieces.piece({ id: 'call_a', type: 'function', function: { name: 'f', arguments: '{}' } }, 0)
    const b = pieces.piece({ id: 'call_b', type: 'function', function: { name: 'g', arguments: '{}' } }, 1)
    expect([a?.index, b?.index]).toEqual([0, 1])
    expect(pieces.piece({ id: 'call_b', function: { arguments: ' ' } }, 0)?.index).toBe(1)
    expect(new ToolCallPieces().piece({ function: { name: 'h', arguments: '' } }, 2)?.index).toBe(2)
  })

  it("keeps id, type and name to a call's first piece (TGI 3.x, SGLang)", () => {
    const pieces = new ToolCallPieces()
    const tgi = (name: string | null, args: string) => ({ index: 0, id: '0', type: 'function', function: { name, arguments: args } })
    expect(pieces.piece(tgi('get_weather', '{'), 0)).toEqual({ index: 0, id: '0', type: 'function', function: { name: 'get_weather', arguments: '{' } })
    expect(pieces.piece(tgi(null, '"city"'), 0)).toEqual({ index: 0, function: { arguments: '"city"' } })
    expect(pieces.piece({ index: 0, id: null, type: null, function: { name: null, arguments: '}' } }, 0)).toEqual({ index: 0, function: { arguments: '}' } })
  })

  it('takes a new id at a used index for the next call', () => {
    const pieces = new ToolCallPieces()
    pieces.piece({ index: 0, id: '0', type: 'function', function: { name: 'f', arguments: '{}' } }, 0)
    expect(pieces.piece({ index: 0, id: '1', type: 'function', function: { name: 'g', arguments: '' } }, 0)).toMatchObject({ index: 1, id: '1', function: { name: 'g' } })
    expect(pieces.piece({ index: 0, id: '1', function: { arguments: '{}' } }, 0)?.index).toBe(1)
  })

  it('gives a call without a usable id one, and object arguments their JSON text', () => {
    const piece = new ToolCallPieces().piece({ index: 0, id: '', type: 'function', function: { name: 'f', arguments: { city: 'Paris' } } }, 0)
    expect(piece?.id).toMatch(/^call_[0-9a-f]{24}$/)
    expect(piece?.function?.arguments).toBe('{"city":"Paris"}')
  })

  it('does not believe an index that is negative, fractional or absurdly large', () => {
    const pieces = new ToolCallPieces()
    expect(pieces.piece({ index: 1e9, id: 'a', type: 'function', function: { name: 'f', arguments: '' } }, 0)?.index).toBe(0)
    expect(pieces.piece({ index: -1, id: 'b', type: 'function', function: { name: 'g', arguments: '' } }, 0)?.index).toBe(1)
    expect(pieces.piece({ index: 0.5, function: { arguments: '{}' } }, 3)?.index).toBe(3)
  })

  it('ignores what is no piece', () => {
    const pieces = new ToolCallPieces()
    expect(pieces.piece(null, 0)).toBeUndefined()
    expect(pieces.piece('x', 0)).toBeUndefined()
    expect(pieces.madeCalls).toBe(false)
  })
})
