import { describe, expect, it } from 'vitest'
import type { ChatTool } from '../../../shared/api/chat-request'
import type { MessagesPrompt } from '../generation-request'
import { emptyArgumentsFor } from './empty-arguments'
import { scriptReply } from './script'

const tool = (name: string): ChatTool => ({ type: 'function', function: { name } })
const request = (overrides: Partial<MessagesPrompt>): MessagesPrompt => ({
  kind: 'messages',
  messages: [{ role: 'user', content: 'say this' }],
  tools: [],
  toolChoice: undefined,
  parallelToolCalls: undefined,
  ...overrides,
})
const names = (script: ReturnType<typeof scriptReply>) =>
  script.kind === 'tool_calls' ? script.tools.map((t) => t.function.name) : script.text

describe('scriptReply', () => {
  const tools = [tool('a'), tool('b'), tool('c')]
  it('repeats the last user message without tools', () => {
    expect(
      scriptReply(request({ messages: [{ role: 'user', content: 'one' }, { role: 'assistant', content: 'x' }, { role: 'user', content: 'two' }] })),
    ).toEqual({ kind: 'text', text: 'two' })
  })
  it('calls the first tool on auto, all on required, the first on required without parallel calls', () => {
    expect(names(scriptReply(request({ tools })))).toEqual(['a'])
    expect(names(scriptReply(request({ tools, toolChoice: 'auto' })))).toEqual(['a'])
    expect(names(scriptReply(request({ tools, toolChoice: 'required' })))).toEqual(['a', 'b', 'c'])
    expect(names(scriptReply(request({ tools, toolChoice: 'required', parallelToolCalls: false })))).toEqual(['a'])
  })
  it('calls the named tool, even after tool results', () => {
    const afterResult = request({
      tools,
      toolChoice: { type: 'function', function: { name: 'c' } },
      messages: [{ role: 'user', content: 'q' }, { role: 'tool', content: 'r', tool_call_id: 'x' }],
    })
    expect(names(scriptReply(afterResult))).toEqual(['c'])
  })
  it('answers in text after tool results on auto, and with tool_choice none', () => {
    const afterResult = request({ tools, messages: [{ role: 'user', content: 'q' }, { role: 'tool', content: 'r', tool_call_id: 'x' }] })
    expect(scriptReply(afterResult)).toEqual({ kind: 'text', text: 'q' })
    expect(scriptReply(request({ tools, toolChoice: 'none' }))).toEqual({ kind: 'text', text: 'say this' })
  })
})

describe('emptyArgumentsFor', () => {
  it('fills each required parameter with an empty value of its type, in order', () => {
    const args = emptyArgumentsFor({
      type: 'function',
      function: {
        name: 'f',
        parameters: {
          type: 'object',
          properties: {
            s: { type: 'string' },
            n: { type: 'number' },
            i: { type: 'integer' },
            b: { type: 'boolean' },
            a: { type: 'array' },
            o: { type: 'object' },
            u: { type: ['string', 'null'] },
            x: { description: 'no type' },
            optional: { type: 'string' },
          },
          required: ['s', 'n', 'i', 'b', 'a', 'o', 'u', 'x', 'missing'],
        },
      },
    })
    expect(JSON.stringify(args)).toBe('{"s":"","n":0,"i":0,"b":false,"a":[],"o":{},"u":"","x":null,"missing":null}')
  })
  it('gives {} without parameters or required', () => {
    expect(emptyArgumentsFor(tool('f'))).toEqual({})
    expect(emptyArgumentsFor({ type: 'function', function: { name: 'f', parameters: { type: 'object', properties: { a: { type: 'string' } } } } })).toEqual({})
  })
})
