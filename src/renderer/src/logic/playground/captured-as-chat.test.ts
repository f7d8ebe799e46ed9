import { describe, expect, it } from 'vitest'
import type { Exchange } from '../../../../shared/api/traffic'
import { capturedAsChat, type CapturedAsChat } from './captured-as-chat'
import { buildPlaygroundRequest, formFromRequest, type PlaygroundForm } from './playground-request'

type Captured = Pick<Exchange, 'method' | 'endpoint' | 'request' | 'truncated'>

function captured(endpoint: string, body: unknown, patch: Partial<Captured> = {}): Captured {
  return {
    method: 'POST',
    endpoint,
    request: { url: endpoint, headers: [['content-type', 'application/json'], ['x-mortar-session', 'agent-1']], body: typeof body === 'string' ? body : JSON.stringify(body) },
    truncated: null,
    ...patch,
  }
}

function opened(result: CapturedAsChat): Extract<CapturedAsChat, { ok: true }> {
  if (!result.ok) throw new Error(result.reason)
  return result
}

/** What the playground shows for it: the form, which must also be one it can send as it is. */
function formOf(result: CapturedAsChat): PlaygroundForm {
  const { body, headers } = opened(result)
  const form = formFromRequest(body, headers)
  const built = buildPlaygroundRequest(form)
  if (!built.ok) throw new Error(built.problems.map((p) => p.message).join('; '))
  return form
}

const weatherParameters = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] }

describe('a captured request as a playground request', () => {
  it('opens chat completions as they were, with the headers it carried and no note', () => {
    const result = capturedAsChat(captured('/v1/chat/completions', { model: 'm', messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }], max_tokens: 50 }))
    expect(opened(result)).toMatchObject({ convertedFrom: null, leftOut: [], note: null, headers: { 'x-mortar-session': 'agent-1' } })
    const form = formOf(result)
    expect(form.system).toBe('Be brief.')
    expect(form.messages).toEqual([{ role: 'user', content: 'Hi' }])
    expect(form.maxTokens).toBe('50')
    expect(form.session).toBe('agent-1')
  })

  it('converts Anthropic Messages: system, tool use and results, tools, tool_choice and sampling', () => {
    const result = capturedAsChat(
      captured('/v1/messages', {
        model: 'claude-x',
        max_tokens: 200,
        system: [{ type: 'text', text: 'You are Claude Code.' }],
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: [{ type: 'text', text: 'Checking.' }, { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Sunny' }, { type: 'text', text: 'And tomorrow?' }] },
        ],
        tools: [{ name: 'get_weather', description: 'Weather by city', input_schema: weatherParameters }],
        tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
        temperature: 0.5,
        top_p: 0.9,
        top_k: 40,
        stop_sequences: ['</done>'],
        stream: true,
        thinking: { type: 'enabled', budget_tokens: 1024 },
      }),
    )
    expect(opened(result).convertedFrom).toBe('Anthropic Messages')
    expect(opened(result).leftOut).toEqual(['thinking', 'top_k'])
    expect(opened(result).note).toBe('Converted from Anthropic Messages (POST /v1/messages) to chat completions. Not carried: thinking, top_k.')
    const form = formOf(result)
    expect(form.model).toBe('claude-x')
    expect(form.system).toBe('You are Claude Code.')
    expect(form.messages).toEqual([
      { role: 'user', content: 'Weather in Paris?' },
      {
        role: 'assistant',
        content: 'Checking.',
        toolCalls: JSON.stringify([{ id: 'toolu_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }], null, 2),
      },
      { role: 'tool', toolCallId: 'toolu_1', content: 'Sunny' },
      { role: 'user', content: 'And tomorrow?' },
    ])
    expect(JSON.parse(form.toolsJson)).toEqual([{ type: 'function', function: { name: 'get_weather', description: 'Weather by city', parameters: weatherParameters } }])
    expect(form).toMatchObject({ toolChoice: 'function:get_weather', parallelToolCalls: 'false', maxTokens: '200', temperature: '0.5', topP: '0.9', stop: '</done>', stream: true, session: 'agent-1' })
  })

  it('converts a count_tokens prompt the same way, with no max_tokens to carry', () => {
    const result = capturedAsChat(captured('/v1/messages/count_tokens', { model: 'claude-x', system: 'Be brief.', messages: [{ role: 'user', content: 'How long am I?' }] }))
    expect(opened(result).note).toBe('Converted from Anthropic count_tokens (POST /v1/messages/count_tokens) to chat completions.')
    const form = formOf(result)
    expect(form).toMatchObject({ system: 'Be brief.', messages: [{ role: 'user', content: 'How long am I?' }], maxTokens: '', stream: false })
  })

  it('converts a Responses request: instructions, function calls and outputs, function tools only, sampling', () => {
    const result = capturedAsChat(
      captured('/v1/responses', {
        model: 'gpt-x',
        instructions: 'You are Codex.',
        input: [
          { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Work in /repo.' }] },
          { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'List the files.' }] },
          { type: 'reasoning', summary: [] },
          { type: 'function_call', call_id: 'call_1', name: 'shell', arguments: '{"cmd":"ls"}' },
          { type: 'function_call_output', call_id: 'call_1', output: 'README.md' },
        ],
        tools: [{ type: 'function', name: 'shell', description: 'Runs a command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } }, { type: 'web_search' }],
        tool_choice: 'auto',
        parallel_tool_calls: false,
        temperature: 0.2,
        top_p: 0.8,
        max_output_tokens: 300,
        stream: true,
        store: false,
        prompt_cache_key: 'codex-session-1',
      }),
    )
    expect(opened(result).convertedFrom).toBe('OpenAI Responses')
    expect(opened(result).leftOut).toEqual(['tools other than functions (web_search)', 'reasoning items', 'prompt_cache_key'])
    const form = formOf(result)
    expect(form.model).toBe('gpt-x')
    expect(form.system).toBe('You are Codex.\n\nWork in /repo.')
    expect(form.messages).toEqual([
      { role: 'user', content: 'List the files.' },
      { role: 'assistant', content: '', toolCalls: JSON.stringify([{ id: 'call_1', type: 'function', function: { name: 'shell', arguments: '{"cmd":"ls"}' } }], null, 2) },
      { role: 'tool', toolCallId: 'call_1', content: 'README.md' },
    ])
    expect(JSON.parse(form.toolsJson)).toEqual([{ type: 'function', function: { name: 'shell', description: 'Runs a command', parameters: { type: 'object', properties: { cmd: { type: 'string' } } } } }])
    expect(form).toMatchObject({ toolChoice: 'auto', parallelToolCalls: 'false', maxTokens: '300', temperature: '0.2', topP: '0.8', stream: true })
  })

  it('makes a legacy completion prompt one user message, keeping its sampling and its default of 16 tokens', () => {
    const result = capturedAsChat(captured('/v1/completions', { model: 'coder', prompt: '<fim_prefix>def add(a, b):', suffix: '<fim_suffix>', temperature: 0.1, stop: ['\n\n'], seed: 7 }))
    expect(opened(result)).toMatchObject({ convertedFrom: 'legacy completions', leftOut: ['suffix (the text after the cursor)'] })
    const form = formOf(result)
    expect(form.system).toBe('')
    expect(form.messages).toEqual([{ role: 'user', content: '<fim_prefix>def add(a, b):' }])
    expect(form).toMatchObject({ model: 'coder', maxTokens: '16', temperature: '0.1', stop: '\n\n', seed: '7', stream: false })
  })

  it('names what chat completions carry and the form does not', () => {
    const result = capturedAsChat(captured('/v1/chat/completions', { messages: [{ role: 'user', content: 'Hi' }], response_format: { type: 'json_object' }, user: 'u1' }))
    expect(opened(result)).toMatchObject({ convertedFrom: null, leftOut: ['response_format', 'user'], note: 'Not carried: response_format, user.' })
  })

  it('refuses, saying why, what has no chat counterpart or no whole valid body', () => {
    const reason = (result: CapturedAsChat) => (result.ok ? null : result.reason)
    expect(reason(capturedAsChat(captured('/v1/models', '', { method: 'GET' })))).toBe('A GET request has no body to send: the playground sends chat completions.')
    expect(reason(capturedAsChat(captured('/v1/embeddings', { input: 'text' })))).toBe('Embeddings return vectors, not a reply: the playground sends chat completions.')
    expect(reason(capturedAsChat(captured('/v1/messages', '{"model": "claude-x", "messa', { truncated: { original_bytes: 9000, kept_bytes: 30, dropped_frames: 0 } })))).toBe(
      'Its body was cut by the capture limit: there is no whole request to send.',
    )
    expect(reason(capturedAsChat(captured('/v1/chat/completions', 'not json')))).toBe('Its body is not a JSON object: there is no request to send.')
    // Refused by the gateway (max_tokens is required): there is no translation to show.
    expect(reason(capturedAsChat(captured('/v1/messages', { model: 'claude-x', messages: [{ role: 'user', content: 'Hi' }] })))).toMatch(/^The gateway refused this Anthropic Messages body \(max_tokens: .+\): it does not convert to chat\.$/)
  })
})
