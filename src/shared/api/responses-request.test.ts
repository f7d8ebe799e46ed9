import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_ID } from './chat-request'
import { parseResponsesRequest } from './responses-request'

function accepted(body: unknown) {
  const parsed = parseResponsesRequest(body)
  if (!parsed.ok) throw new Error(`refused: ${parsed.issue.param} ${parsed.issue.message}`)
  return parsed.request
}

function refused(body: unknown) {
  const parsed = parseResponsesRequest(body)
  if (parsed.ok) throw new Error('accepted')
  return parsed.issue
}

describe('the Responses request contract', () => {
  it('takes a string input as one user message, with the API defaults', () => {
    const request = accepted({ input: 'Hello' })
    expect(request.model).toBe(DEFAULT_MODEL_ID)
    expect(request.input).toEqual([{ type: 'message', role: 'user', content: 'Hello' }])
    expect(request.stream).toBe(false)
    expect(request.tools).toEqual([])
  })

  it('reads message items with text parts, typed or not, and drops parts without text', () => {
    const request = accepted({
      input: [
        { role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'a' }, { type: 'input_image', image_url: 'x' }, { type: 'input_text', text: 'b' }] },
        { type: 'message', role: 'assistant', id: 'msg_1', status: 'completed', content: [{ type: 'output_text', text: 'c', annotations: [] }] },
      ],
    })
    expect(request.input).toEqual([
      { type: 'message', role: 'developer', content: 'Be brief.' },
      { type: 'message', role: 'user', content: 'a\nb' },
      { type: 'message', role: 'assistant', content: 'c' },
    ])
  })

  it('reads function calls, their outputs and reasoning items', () => {
    const request = accepted({
      input: [
        { type: 'reasoning', id: 'rs_1', summary: [], encrypted_content: 'x' },
        { type: 'function_call', id: 'fc_1', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}', status: 'completed' },
        { type: 'function_call_output', call_id: 'call_1', output: '18 C' },
        { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'sunny' }] },
      ],
    })
    expect(request.input).toEqual([
      { type: 'reasoning' },
      { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { type: 'function_call_output', call_id: 'call_1', output: '18 C' },
      { type: 'function_call_output', call_id: 'call_2', output: 'sunny' },
    ])
  })

  it('refuses an input item of a kind it does not serve, naming the place', () => {
    const issue = refused({ input: [{ type: 'computer_call_output', call_id: 'c', output: {} }] })
    expect(issue.param).toBe('input[0].type')
    expect(issue.message).toContain('does not serve')
  })

  it('refuses a bad field of an item, naming the place', () => {
    expect(refused({ input: [{ type: 'function_call', call_id: 'c', name: 'f' }] }).param).toBe('input[0].arguments')
    expect(refused({ input: [{ role: 'robot', content: 'x' }] }).param).toBe('input[0].role')
    expect(refused({}).param).toBe('input')
  })

  it('drops references to reasoning, and refuses references to anything else (nothing is stored)', () => {
    expect(accepted({ input: [{ type: 'item_reference', id: 'rs_abc' }] }).input).toEqual([{ type: 'item_reference', id: 'rs_abc' }])
    const issue = refused({ input: [{ type: 'item_reference', id: 'msg_abc' }] })
    expect(issue.param).toBe('input[0].id')
    expect(issue.message).toContain('store: false')
  })

  it('refuses previous_response_id, conversation and a stored prompt: Mortar stores none of them', () => {
    expect(refused({ input: 'x', previous_response_id: 'resp_1' }).message).toContain('whole conversation')
    expect(refused({ input: 'x', conversation: 'conv_1' }).param).toBe('conversation')
    expect(refused({ input: 'x', prompt: { id: 'pmpt_1', variables: { city: 'Paris' } } })).toMatchObject({ param: 'prompt', message: expect.stringContaining('stores no prompts') })
  })

  it('serves function tools and leaves the other kinds out, remembering which', () => {
    const request = accepted({
      input: 'x',
      tools: [
        { type: 'function', name: 'shell', description: 'run', parameters: { type: 'object' }, strict: false },
        { type: 'web_search', external_web_access: false },
        { type: 'namespace', name: 'agents', tools: [] },
      ],
    })
    expect(request.tools).toEqual([{ type: 'function', name: 'shell', description: 'run', parameters: { type: 'object' }, strict: false }])
    expect(request.ignoredToolTypes).toEqual(['web_search', 'namespace'])
  })

  it('holds function tools to chat completions’ name rule and uniqueness', () => {
    expect(refused({ input: 'x', tools: [{ type: 'function', name: 'a.b' }] }).param).toBe('tools[0].name')
    expect(refused({ input: 'x', tools: [{ type: 'function', name: 'a' }, { type: 'function', name: 'a' }] }).param).toBe('tools[1].name')
  })

  it('checks tool_choice against the tools', () => {
    expect(accepted({ input: 'x', tools: [{ type: 'function', name: 'a' }], tool_choice: { type: 'function', name: 'a' } }).toolChoice).toEqual({
      type: 'function',
      name: 'a',
    })
    expect(refused({ input: 'x', tools: [{ type: 'function', name: 'a' }], tool_choice: { type: 'function', name: 'b' } }).param).toBe('tool_choice.name')
    expect(refused({ input: 'x', tool_choice: 'required' }).param).toBe('tool_choice')
    expect(refused({ input: 'x', tool_choice: { type: 'web_search' } }).message).toContain('function tools only')
  })

  it('refuses allowed_tools that require a call of tools it does not serve, and narrows to the function ones', () => {
    const tools = [{ type: 'function', name: 'a' }, { type: 'web_search' }]
    expect(refused({ input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'web_search' }] } }).param).toBe('tool_choice.tools')
    expect(refused({ input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'b' }] } }).param).toBe('tool_choice.tools')
    expect(accepted({ input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'required', tools: [{ type: 'function', name: 'a' }, { type: 'web_search' }] } }).toolChoice).toMatchObject({ mode: 'required' })
    // Without a required call, a choice of only other kinds leaves the model free to answer in text.
    expect(accepted({ input: 'x', tools, tool_choice: { type: 'allowed_tools', mode: 'auto', tools: [{ type: 'web_search' }] } }).toolChoice).toMatchObject({ mode: 'auto' })
  })

  it('reads max_output_tokens, stream, store and the sampling fields; null is absent', () => {
    const request = accepted({ input: 'x', max_output_tokens: 16, stream: true, store: false, temperature: 0.2, top_p: null, instructions: null })
    expect(request).toMatchObject({ maxOutputTokens: 16, stream: true, store: false, temperature: 0.2, topP: undefined, instructions: undefined })
    expect(refused({ input: 'x', max_output_tokens: 0 }).param).toBe('max_output_tokens')
  })
})
