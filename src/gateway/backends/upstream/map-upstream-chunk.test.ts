import { describe, expect, it } from 'vitest'
import { loadTokenizer } from '../../tokens/tokenizer-registry'
import { reasoningOf, UpstreamChunkMapper, upstreamUsage } from './map-upstream-chunk'

const qwen = loadTokenizer('qwen2.5')
const chunk = (delta: object, finish_reason: string | null = null) => ({ choices: [{ index: 0, delta, finish_reason }] })

describe('UpstreamChunkMapper', () => {
  it('maps reasoning, content and tool pieces, each with its token count', () => {
    const mapper = new UpstreamChunkMapper(qwen)
    expect(mapper.events(chunk({ reasoning_content: 'Think', content: null, tool_calls: null }))).toEqual([{ kind: 'reasoning', text: 'Think', tokens: qwen.count('Think') }])
    expect(mapper.events(chunk({ role: 'assistant', content: '', reasoning: ' more' }))).toEqual([{ kind: 'reasoning', text: ' more', tokens: qwen.count(' more') }])
    expect(mapper.events(chunk({ content: 'Hi' }))).toEqual([{ kind: 'content', text: 'Hi', tokens: qwen.count('Hi') }])
    expect(mapper.sawFinish).toBe(false)
  })

  it('takes a TGI 2.x tool piece sent as an object, not a list', () => {
    const events = new UpstreamChunkMapper(qwen).events(chunk({ tool_calls: { index: 0, id: '', type: 'function', function: { name: 'f', arguments: '{' } } }))
    expect(events).toMatchObject([{ kind: 'tool_call', delta: { index: 0, type: 'function', function: { name: 'f', arguments: '{' } } }])
  })

  it('derives stop for a reply without calls, tool_calls for one with them', () => {
    const text = new UpstreamChunkMapper(qwen)
    text.events(chunk({ content: 'Hi' }))
    expect(text.derivedFinish()).toEqual({ kind: 'finish', reason: 'stop', derived: true })
    expect(text.sawFinish).toBe(true)
    const calls = new UpstreamChunkMapper(qwen)
    calls.events(chunk({ tool_calls: [{ id: 'c', function: { name: 'f', arguments: '{}' } }] }))
    expect(calls.derivedFinish()).toEqual({ kind: 'finish', reason: 'tool_calls', derived: true })
  })

  it("reports the server's finish reason as it is, and an empty one as none", () => {
    const mapper = new UpstreamChunkMapper(qwen)
    expect(mapper.events(chunk({}, ''))).toEqual([])
    expect(mapper.events(chunk({}, 'stop'))).toEqual([{ kind: 'finish', reason: 'stop' }])
    expect(mapper.sawFinish).toBe(true)
  })
})

describe('reasoningOf', () => {
  it('prefers reasoning_content, falls back to reasoning, and treats null and empty as none', () => {
    expect(reasoningOf({ reasoning_content: 'a', reasoning: 'b' })).toBe('a')
    expect(reasoningOf({ reasoning_content: null, reasoning: 'b' })).toBe('b')
    expect(reasoningOf({ reasoning_content: '', reasoning: '' })).toBeUndefined()
    expect(reasoningOf({})).toBeUndefined()
  })
})

describe('upstreamUsage', () => {
  it('keeps the counts and object details, and leaves out null details and other fields', () => {
    expect(
      upstreamUsage({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, prompt_tokens_details: null, completion_tokens_details: { reasoning_tokens: 1 }, extra: 9 }),
    ).toEqual({ prompt_tokens: 1, completion_tokens: 2, total_tokens: 3, completion_tokens_details: { reasoning_tokens: 1 } })
    expect(upstreamUsage({ prompt_tokens: 1 })).toBeUndefined()
    expect(upstreamUsage(null)).toBeUndefined()
  })
})
