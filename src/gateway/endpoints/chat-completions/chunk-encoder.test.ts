import { describe, expect, it } from 'vitest'
import { ChunkEncoder } from './chunk-encoder'

// The encoder builds strings by hand for speed; they must equal JSON.stringify of the documented objects.
describe('ChunkEncoder', () => {
  const id = 'chatcmpl-0123456789abcdef01234567'
  const model = 'Qwen/Qwen2.5-7B-Instruct "quoted"'
  const encoder = new ChunkEncoder(id, 1767225600, model)
  const chunk = (choices: unknown[], extra: object = {}) =>
    JSON.stringify({ id, object: 'chat.completion.chunk', created: 1767225600, model, choices, ...extra })

  it('writes each chunk kind byte for byte as JSON.stringify writes the documented chunk', () => {
    expect(encoder.role()).toBe(chunk([{ index: 0, delta: { role: 'assistant' }, logprobs: null, finish_reason: null }]))
    const tricky = 'line\nbreak "quote" \\ \u2028 \u0000 😀'
    expect(encoder.content(tricky)).toBe(chunk([{ index: 0, delta: { content: tricky }, logprobs: null, finish_reason: null }]))
    const piece = { index: 1, id: 'call_1', type: 'function' as const, function: { name: 'f', arguments: '' } }
    expect(encoder.toolCall(piece)).toBe(chunk([{ index: 0, delta: { tool_calls: [piece] }, logprobs: null, finish_reason: null }]))
    expect(encoder.finish('length')).toBe(chunk([{ index: 0, logprobs: null, finish_reason: 'length' }]))
    const usage = { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 }
    expect(encoder.usage(usage)).toBe(chunk([], { usage }))
  })

  it('gives the finish chunk an empty delta when the dialect asks for one', () => {
    const openai = new ChunkEncoder(id, 1767225600, model, true)
    expect(openai.finish('stop')).toBe(chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: 'stop' }]))
    expect(openai.role()).toBe(encoder.role())
  })

  it('never puts a raw line break in a frame', () => {
    expect(encoder.content('a\r\nb')).not.toMatch(/[\r\n]/)
  })
})
