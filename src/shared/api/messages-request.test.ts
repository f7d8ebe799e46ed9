import { describe, expect, it } from 'vitest'
import { parseCountTokensRequest, parseMessagesRequest } from './messages-request'

const base = { model: 'm', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }

function issue(body: unknown): { param: string | null; message: string } {
  const parsed = parseMessagesRequest(body)
  if (parsed.ok) throw new Error('expected a refusal')
  return parsed.issue
}

describe('parseMessagesRequest', () => {
  it('accepts the minimal request and strips fields it does not define', () => {
    const parsed = parseMessagesRequest({ ...base, service_tier: 'auto' })
    expect(parsed.ok && parsed.request).toEqual(base)
  })

  it('requires model, max_tokens and messages, naming the field', () => {
    expect(issue({ messages: base.messages, max_tokens: 1 }).param).toBe('model')
    expect(issue({ model: 'm', messages: base.messages })).toEqual({ param: 'max_tokens', message: 'Invalid `max_tokens`: must be a positive whole number.' })
    expect(issue({ model: 'm', max_tokens: 1, messages: [] }).param).toBe('messages')
  })

  it('refuses blocks of unknown types and blocks in the wrong turn', () => {
    expect(issue({ ...base, messages: [{ role: 'user', content: [{ type: 'video', url: 'x' }] }] }).param).toBe('messages[0].content[0].type')
    expect(issue({ ...base, messages: [{ role: 'user', content: [{ type: 'tool_use', id: 'a', name: 'b', input: {} }] }] }).param).toBe(
      'messages[0].content[0].type',
    )
  })

  it('holds tools to a name and an input_schema, server tools refused', () => {
    expect(issue({ ...base, tools: [{ name: 'x' }] }).param).toBe('tools[0].input_schema')
    expect(issue({ ...base, tools: [{ type: 'web_search_20250305', name: 'web_search', input_schema: {} }] }).param).toBe('tools[0].type')
    expect(issue({ ...base, tools: [{ name: 'a', input_schema: {} }, { name: 'a', input_schema: {} }] }).param).toBe('tools[1].name')
    expect(issue({ ...base, tools: [{ name: 'a', input_schema: {} }], tool_choice: { type: 'tool', name: 'b' } }).param).toBe('tool_choice.name')
    expect(issue({ ...base, tool_choice: { type: 'any' } }).param).toBe('tool_choice')
  })

  it('accepts thinking, stop_sequences, sampling fields and metadata', () => {
    const body = { ...base, thinking: { type: 'enabled', budget_tokens: 1024 }, stop_sequences: ['x'], temperature: 1, top_p: 0.5, top_k: 5, metadata: { user_id: 'u' } }
    expect(parseMessagesRequest(body).ok).toBe(true)
    expect(issue({ ...base, temperature: 2 }).param).toBe('temperature')
  })
})

describe('parseCountTokensRequest', () => {
  it('needs no max_tokens', () => {
    expect(parseCountTokensRequest({ model: 'm', messages: base.messages }).ok).toBe(true)
  })
})
