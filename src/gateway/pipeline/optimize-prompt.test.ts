import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ChatCompletionRequest, ChatMessage } from '../../shared/api/chat-request'
import { GatewayError } from '../errors'
import { jsonContainerText, prettyJsonContainer } from '../optimizer/test-support/json-arbitraries'
import { OPTIMIZER_RULESET, optimizePrompt } from './optimize-prompt'
import type { OptimizerMode } from '../../shared/api/optimizer'

const PRETTY = JSON.stringify({ items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] }, null, 2)
const COMPACT = JSON.stringify({ items: [{ id: 1, name: 'a' }, { id: 2, name: 'b' }] })
const BLOCK_TOOL = 'Results:\n```json\n[ 1, 2, 3 ]\n```\nNAME    AGE\nweb     3d'

/** A chat request as the stages see it: a conversation (`kind: 'messages'`) with its other fields. */
function request(messages?: ChatMessage[]): ChatCompletionRequest & { kind: 'messages' } {
  return {
    kind: 'messages',
    model: 'm',
    messages: messages ?? [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'List the items.' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'list', arguments: '{ "all" : true }' } }],
      },
      { role: 'tool', tool_call_id: 'c1', content: PRETTY },
      { role: 'tool', tool_call_id: 'c2', content: BLOCK_TOOL },
    ],
    stream: true,
    includeUsage: false,
    maxTokens: undefined,
    user: undefined,
    tools: [{ type: 'function', function: { name: 'list', parameters: { type: 'object' } } }],
    toolChoice: undefined,
    parallelToolCalls: undefined,
    extraFields: { temperature: 0 },
  }
}

const settings = (deploymentMode: OptimizerMode, orgDefault?: 'on' | 'off') => ({ deploymentMode, orgDefault })
const REPORT = /^ruleset=(\d+); mode=(on|shadow); bytes=(\d+); saved=(\d+); passes=([a-z-]+\/\d+(?:,[a-z-]+\/\d+)*); elapsed_us=(\d+)$/
const OFF = `ruleset=${OPTIMIZER_RULESET}; mode=off`

function fields(report: string) {
  const match = REPORT.exec(report)
  if (match === null) throw new Error(`not a report: ${report}`)
  return { mode: match[2], bytes: Number(match[3]), saved: Number(match[4]), passes: match[5], elapsedUs: Number(match[6]) }
}

describe('optimizePrompt', () => {
  it('is ruleset 2', () => {
    expect(OPTIMIZER_RULESET).toBe(2)
  })

  describe('the header', () => {
    it.each(['', 'yes', 'on,off', 'on,collapse-spaces', 'json-compact,', 'collapse_spaces', 'all'])(
      'refuses %j with a 400 naming X-Mortar-Optimize, in every deployment mode',
      (value) => {
        for (const mode of ['shadow', 'on', 'off'] as const) {
          let error: unknown
          try {
            optimizePrompt(request(), value, settings(mode))
          } catch (caught) {
            error = caught
          }
          expect(error).toBeInstanceOf(GatewayError)
          expect((error as GatewayError).status).toBe(400)
          expect((error as GatewayError).param).toBe('X-Mortar-Optimize')
        }
      },
    )

    it('accepts any case and spaces around names', () => {
      expect(fields(optimizePrompt(request(), ' ON ', settings('on')).report).mode).toBe('on')
      expect(fields(optimizePrompt(request(), 'Collapse-Spaces , json-tool-blocks', settings('on')).report).passes).toBe(
        'json-compact/1,json-tool-blocks/1,collapse-spaces/1',
      )
    })
  })

  describe('deployment off', () => {
    it.each([undefined, 'on', 'off', 'json-tool-blocks'])('runs nothing whatever the header (%s)', (header) => {
      const input = request()
      const result = optimizePrompt(input, header, settings('off', 'on'))
      expect(result).toEqual({ request: input, report: OFF })
      expect(result.request).toBe(input)
    })
  })

  describe('deployment on', () => {
    it('header on: the lossless defaults, even when the org default is off', () => {
      const input = request()
      const { request: out, report } = optimizePrompt(input, 'on', settings('on', 'off'))
      expect(out).not.toBe(input)
      expect(out.messages[3]?.content).toBe(COMPACT)
      expect(out.messages[4]?.content).toBe(BLOCK_TOOL) // opt-ins not run
      const f = fields(report)
      expect(f).toMatchObject({ mode: 'on', passes: 'json-compact/1', saved: PRETTY.length - COMPACT.length })
    })

    it('no header: the org default — undefined and on run the defaults, off runs nothing', () => {
      expect(fields(optimizePrompt(request(), undefined, settings('on')).report).passes).toBe('json-compact/1')
      expect(fields(optimizePrompt(request(), undefined, settings('on', 'on')).report).passes).toBe('json-compact/1')
      const input = request()
      expect(optimizePrompt(input, undefined, settings('on', 'off'))).toEqual({ request: input, report: OFF })
    })

    it('header off: nothing runs', () => {
      const input = request()
      const result = optimizePrompt(input, 'off', settings('on', 'on'))
      expect(result.report).toBe(OFF)
      expect(result.request).toBe(input)
    })

    it('named passes run on top of the defaults, listed in ruleset order with their counts (0 included)', () => {
      const { request: out, report } = optimizePrompt(request(), 'json-tool-blocks', settings('on', 'off'))
      expect(fields(report).passes).toBe('json-compact/1,json-tool-blocks/1')
      expect(out.messages[4]?.content).toBe('Results:\n```json\n[1,2,3]\n```\nNAME    AGE\nweb     3d')
      const none = optimizePrompt(request([{ role: 'user', content: 'hi' }]), 'collapse-spaces', settings('on'))
      expect(fields(none.report)).toMatchObject({ passes: 'json-compact/0,collapse-spaces/0', saved: 0, bytes: 2 })
      expect(fields(optimizePrompt(request(), 'json-compact', settings('on')).report).passes).toBe('json-compact/1')
    })

    it('returns a new request and never mutates the input; tool calls, tools and other fields are kept', () => {
      const input = request()
      const snapshot = structuredClone(input)
      const { request: out } = optimizePrompt(input, 'json-tool-blocks,collapse-spaces', settings('on'))
      expect(input).toEqual(snapshot)
      expect(out).not.toBe(input)
      expect(out.messages).not.toBe(input.messages)
      expect(out.messages[2]).toEqual(input.messages[2]) // tool_calls arguments are left as sent
      expect(out.tools).toEqual(input.tools)
      expect(out.extraFields).toEqual(input.extraFields)
      expect({ ...out, messages: [] }).toEqual({ ...input, messages: [] })
      expect(out.messages.map((m) => m.tool_call_id)).toEqual(input.messages.map((m) => m.tool_call_id))
    })

    it('a prompt with nothing to remove still comes back as a new object', () => {
      const input = request([{ role: 'user', content: 'hello' }])
      const { request: out, report } = optimizePrompt(input, undefined, settings('on'))
      expect(out).not.toBe(input)
      expect(out).toEqual(input)
      expect(fields(report)).toMatchObject({ bytes: 5, saved: 0 })
    })
  })

  describe('deployment shadow', () => {
    it('measures what would be removed but returns the request as sent (the same object)', () => {
      const input = request()
      const snapshot = structuredClone(input)
      const { request: out, report } = optimizePrompt(input, undefined, settings('shadow'))
      expect(out).toBe(input)
      expect(input).toEqual(snapshot)
      const onReport = fields(optimizePrompt(request(), undefined, settings('on')).report)
      expect(fields(report)).toMatchObject({ mode: 'shadow', bytes: onReport.bytes, saved: onReport.saved, passes: onReport.passes })
      expect(fields(report).saved).toBeGreaterThan(0)
    })

    it('honours the header and the org default in what it measures', () => {
      expect(fields(optimizePrompt(request(), 'json-tool-blocks', settings('shadow')).report).passes).toBe(
        'json-compact/1,json-tool-blocks/1',
      )
      expect(optimizePrompt(request(), 'off', settings('shadow')).report).toBe(OFF)
      expect(optimizePrompt(request(), undefined, settings('shadow', 'off')).report).toBe(OFF)
    })
  })

  it('reports bytes as the UTF-8 size of all message contents, and elapsed_us as a whole number', () => {
    const input = request([
      { role: 'user', content: 'héllo' },
      { role: 'tool', tool_call_id: 'x', content: '[ "😀" ]' },
    ])
    const f = fields(optimizePrompt(input, undefined, settings('on')).report)
    expect(f.bytes).toBe(6 + 10)
    expect(f.saved).toBe(2)
    expect(Number.isInteger(f.elapsedUs)).toBe(true)
    expect(f.elapsedUs).toBeGreaterThanOrEqual(0)
  })

  it('property: shadow returns the request as sent and measures exactly what on would remove; neither mutates', () => {
    const message: fc.Arbitrary<ChatMessage> = fc.oneof(
      fc.record({ role: fc.constantFrom('system' as const, 'user' as const, 'assistant' as const), content: fc.oneof(fc.string(), jsonContainerText) }),
      fc.record({
        role: fc.constant('tool' as const),
        tool_call_id: fc.constant('t'),
        content: fc.oneof(prettyJsonContainer, fc.string(), prettyJsonContainer.map((j) => 'Result:\n```json\n' + j + '\n```\nA    B')),
      }),
    )
    const header = fc.constantFrom(undefined, 'on', 'json-tool-blocks', 'collapse-spaces', 'json-tool-blocks,collapse-spaces')
    fc.assert(
      fc.property(fc.array(message, { minLength: 1, maxLength: 6 }), header, (messages, value) => {
        const input = request(messages)
        const snapshot = structuredClone(input)
        const shadow = optimizePrompt(input, value, settings('shadow'))
        const on = optimizePrompt(input, value, settings('on'))
        expect(input).toEqual(snapshot)
        expect(shadow.request).toBe(input)
        const strip = (report: string) => report.replace(/mode=\w+; /, '').replace(/elapsed_us=\d+/, '')
        expect(strip(shadow.report)).toBe(strip(on.report))
        const size = (list: readonly ChatMessage[]) => list.reduce((n, m) => n + Buffer.byteLength(m.content ?? ''), 0)
        expect(fields(on.report).saved).toBe(size(input.messages) - size(on.request.messages))
        expect(on.request.messages.map((m) => [m.role, m.tool_call_id])).toEqual(input.messages.map((m) => [m.role, m.tool_call_id]))
      }),
      { numRuns: 200 },
    )
  })
})
