import { describe, expect, it } from 'vitest'
import { summarizeFrame } from './frame-summary'
import { StreamFrameRecorder, type StreamFrame } from './stream-frames'

/** Frames as the recorder makes them from the text a server sends. */
function frames(text: string): StreamFrame[] {
  const recorder = new StreamFrameRecorder()
  return [...recorder.push(text, 1), ...recorder.end(2)]
}

const chunk = (choice: object | null, extra: object = {}) =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'm', choices: choice === null ? [] : [{ index: 0, logprobs: null, ...choice }], ...extra })}\n\n`

const summary = (text: string) => {
  const [frame] = frames(text)
  if (frame === undefined) throw new Error('no frame')
  return summarizeFrame(frame)
}

describe('summarizeFrame', () => {
  it('names the role of the first chunk, and not its empty content', () => {
    const s = summary(chunk({ delta: { role: 'assistant', content: '' }, finish_reason: null }))
    expect(s.kind).toBe('role')
    expect(s.parts).toEqual([{ kind: 'role', role: 'assistant' }])
    expect(s.text).toBe('role assistant')
  })

  it('shows content deltas quoted, so spaces and line ends can be seen', () => {
    const s = summary(chunk({ delta: { content: ' line\nnext' }, finish_reason: null }))
    expect(s.kind).toBe('content')
    expect(s.text).toBe('content " line\\nnext"')
  })

  it("shows a text_completion chunk's text as its content, and its finish", () => {
    const piece = (text: string, finish: string | null) =>
      `data: ${JSON.stringify({ id: 'cmpl-1', object: 'text_completion', created: 1, model: 'm', choices: [{ text, index: 0, logprobs: null, finish_reason: finish }] })}\n\n`
    expect(summary(piece(' b):', null)).text).toBe('content " b):"')
    expect(summary(piece('', 'length')).text).toBe('finish length')
  })

  it('reads reasoning under both names model servers use', () => {
    expect(summary(chunk({ delta: { reasoning_content: 'think' }, finish_reason: null })).text).toBe('reasoning "think"')
    const ollama = summary(chunk({ delta: { role: 'assistant', content: '', reasoning: 'hmm' }, finish_reason: null }))
    expect(ollama.parts.map((p) => p.kind)).toEqual(['role', 'reasoning'])
  })

  it('shows a tool-call piece with its index, name, id and argument fragment', () => {
    const first = summary(
      chunk({ delta: { tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '' } }] }, finish_reason: null }),
    )
    expect(first.kind).toBe('tool')
    expect(first.text).toBe('tool [0] get_weather id call_1')
    const later = summary(chunk({ delta: { tool_calls: [{ index: 0, function: { arguments: '{"city":' } }] }, finish_reason: null }))
    expect(later.text).toBe('tool [0] "{\\"city\\":"')
    // TGI repeats fields with null; an Ollama piece may lack its index.
    const odd = summary(chunk({ delta: { tool_calls: [{ id: '0', function: { name: null, arguments: 'x' } }] }, finish_reason: null }))
    expect(odd.parts).toEqual([{ kind: 'tool', index: null, id: '0', name: null, arguments: 'x' }])
    expect(odd.text).toBe('tool [?] id 0 "x"')
  })

  it('shows the finish reason, and usage with cached tokens when the server reports them', () => {
    expect(summary(chunk({ delta: {}, finish_reason: 'tool_calls' })).text).toBe('finish tool_calls')
    const usage = summary(chunk(null, { usage: { prompt_tokens: 12, completion_tokens: 30, total_tokens: 42, prompt_tokens_details: { cached_tokens: 8 } } }))
    expect(usage.kind).toBe('usage')
    expect(usage.text).toBe('usage prompt 12 · completion 30 · cached 8')
    // A finish chunk that carries usage too (llama.cpp) shows both, finish first.
    const both = summary(chunk({ delta: {}, finish_reason: 'stop' }, { usage: { prompt_tokens: 1, completion_tokens: 2, total_tokens: 3 } }))
    expect(both.parts.map((p) => p.kind)).toEqual(['finish', 'usage'])
    expect(both.text).toBe('finish stop · usage prompt 1 · completion 2')
  })

  it('ignores the null fields SGLang sends for every unused delta field', () => {
    const s = summary(chunk({ delta: { role: null, content: 'a', reasoning_content: null, tool_calls: null }, finish_reason: null, matched_stop: null }, { usage: null }))
    expect(s.parts).toEqual([{ kind: 'content', text: 'a' }])
  })

  it('calls a chunk that carries nothing empty', () => {
    expect(summary(chunk({ delta: {}, finish_reason: null })).kind).toBe('empty')
  })

  it('names ping, [DONE], error events, comments, data that is not a chunk and a cut-off frame', () => {
    const all = frames(
      ': ping\n\ndata: [DONE]\n\ndata: {"error":{"message":"gone","type":"upstream_error","param":null,"code":"upstream_error"}}\n\n: hello\n\ndata: nope\n\ndata: {"cut',
    ).map(summarizeFrame)
    expect(all.map((s) => s.kind)).toEqual(['ping', 'done', 'error', 'comment', 'invalid', 'partial'])
    expect(all.map((s) => s.text)).toEqual(['ping', '[DONE]', 'error upstream_error: gone', 'comment : hello', 'invalid nope', 'partial data: {"cut'])
  })

  it('calls a frame with only an event: line empty', () => {
    expect(summary('event: message\n\n').kind).toBe('empty')
  })
})
