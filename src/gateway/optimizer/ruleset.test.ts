import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChatMessage } from '../../shared/api/chat-request'
import { OPTIMIZER_PASSES, type OptimizerPass } from '../../shared/api/optimizer'
import { runRuleset } from './ruleset'
import { jsonContainerText, prettyJsonContainer } from './test-support/json-arbitraries'

const all = new Set<OptimizerPass>(OPTIMIZER_PASSES)

describe('runRuleset', () => {
  const messages: ChatMessage[] = [
    { role: 'system', content: 'You are terse.' },
    { role: 'user', content: '{\n  "task": "summarize"\n}' },
    {
      role: 'assistant',
      content: null,
      tool_calls: [{ id: 'c1', type: 'function', function: { name: 'ps', arguments: '{ "all": true }' } }],
    },
    { role: 'tool', tool_call_id: 'c1', content: 'PID   CMD\n1     init\n```json\n{ "n": 1 }\n```' },
    { role: 'tool', tool_call_id: 'c2', content: '[ 1, 2 ]' },
  ]

  it('runs the passes in ruleset order over the contents they apply to, counting changes', () => {
    const run = runRuleset(messages, all)
    expect(run.counts).toEqual([
      ['json-compact', 2],
      ['json-tool-blocks', 1],
      ['collapse-spaces', 1],
    ])
    expect(run.messages?.map((m) => m.content)).toEqual([
      'You are terse.',
      '{"task":"summarize"}',
      null,
      'PID CMD\n1 init\n```json\n{"n":1}\n```',
      '[1,2]',
    ])
  })

  it('counts UTF-8 bytes of the contents before, and the bytes removed', () => {
    const run = runRuleset([{ role: 'tool', tool_call_id: 'x', content: '{ "é": "😀" }' }], new Set(['json-compact']))
    expect(run.bytes).toBe(Buffer.byteLength('{ "é": "😀" }'))
    expect(run.saved).toBe(3)
  })

  it('only tool contents get the opt-in passes', () => {
    const table = 'a    b'
    const run = runRuleset([{ role: 'user', content: table }], all)
    expect(run.messages).toBeUndefined()
    expect(run.counts).toEqual([
      ['json-compact', 0],
      ['json-tool-blocks', 0],
      ['collapse-spaces', 0],
    ])
  })

  it('never mutates its input; unchanged messages are reused, tool calls are untouched', () => {
    const before = structuredClone(messages)
    const run = runRuleset(messages, all)
    expect(messages).toEqual(before)
    expect(run.messages).not.toBe(messages)
    expect(run.messages?.[0]).toBe(messages[0])
    expect(run.messages?.[2]).toBe(messages[2])
    expect(run.messages?.[3]?.tool_call_id).toBe('c1')
  })

  it('property: saved is the byte difference, JSON contents parse to the same value, off-JSON prose is untouched', () => {
    const content = fc.oneof(jsonContainerText, prettyJsonContainer, fc.string(), fc.constant(null))
    const message = fc.record({
      role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const, 'tool' as const),
      content,
    })
    fc.assert(
      fc.property(fc.array(message, { maxLength: 8 }), fc.subarray([...OPTIMIZER_PASSES]), (msgs, passes) => {
        const run = runRuleset(msgs, new Set(passes))
        const after = run.messages ?? msgs
        const bytes = (list: readonly ChatMessage[]) => list.reduce((sum, m) => sum + Buffer.byteLength(m.content ?? ''), 0)
        expect(run.bytes).toBe(bytes(msgs))
        expect(run.saved).toBe(bytes(msgs) - bytes(after))
        after.forEach((m, i) => {
          const original = msgs[i]!.content
          if (original === null || m.content === original) return
          let parsedBefore: unknown
          try {
            parsedBefore = JSON.parse(original)
          } catch {
            return // a prose tool content changed by an opt-in pass
          }
          expect(JSON.parse(m.content!)).toEqual(parsedBefore)
        })
        if (run.messages === undefined) expect(run.saved).toBe(0)
      }),
      { numRuns: 300 },
    )
  })
})
