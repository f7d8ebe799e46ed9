import { describe, expect, it } from 'vitest'
import type { ChatMessage, ChatTool } from '../../shared/api/chat-request'
import { deepFreeze } from '../../shared/api/element-results'
import { countTemplateTokens, QWEN_DEFAULT_SYSTEM, renderQwen2Prompt, renderToolCall, type TemplatePiece } from './chat-template'
import { pythonJsonDumps } from './python-json'
import { o200kTokenizer } from './gpt-tokenizer'
import { readQwenTokenizerJson } from './qwen-tokenizer'
import { loadQwenReference } from './test-support/qwen-reference'
import { loadTokenizer } from './tokenizer-registry'

const text = (pieces: TemplatePiece[]) => pieces.map((p) => (typeof p === 'string' ? p : p.special)).join('')

describe('renderQwen2Prompt', () => {
  it('renders tool calls and tools it rendered before exactly as the first time, told apart by all they depend on', () => {
    const call = (name: string, args: string) => '\n<tool_call>\n{"name": "' + name + '", "arguments": ' + pythonJsonDumps(JSON.parse(args)) + '}\n</tool_call>'
    for (let round = 0; round < 2; round++) {
      expect(renderToolCall('read', '{"path":"a.ts"}')).toBe(call('read', '{"path":"a.ts"}'))
      expect(renderToolCall('read', '{"path":"b.ts"}')).toBe(call('read', '{"path":"b.ts"}'))
      expect(renderToolCall('write', '{"path":"a.ts"}')).toBe(call('write', '{"path":"a.ts"}'))
      // A name that ends where the arguments could begin is still another call.
      expect(renderToolCall('read\u0000x', '{}')).not.toBe(renderToolCall('read', '\u0000x{}'))
    }
    const tool = (description: string): ChatTool => ({ type: 'function', function: { name: 'f', description, parameters: { type: 'object' } } })
    // The system block: the text of the first run.
    const system = (tools: ChatTool[]) => text(renderQwen2Prompt([{ role: 'user', content: 'Hi' }], tools)).split('<|im_end|>')[0]
    const first = system([tool('first tool')])
    expect(system([tool('first tool')])).toBe(first)
    expect(system([tool('other tool')])).toBe(String(first).replace('first tool', 'other tool'))
    // A tool that never changes is rendered as the same tool that may: once, then kept with it.
    const frozen = deepFreeze(tool('first tool'))
    for (let round = 0; round < 2; round++) expect(system([frozen])).toBe(first)
    expect(system([deepFreeze(tool('a frozen other'))])).toBe(String(first).replace('first tool', 'a frozen other'))
  })

  it('inserts the default system block when the conversation has none', () => {
    expect(text(renderQwen2Prompt([{ role: 'user', content: 'Hi' }], []))).toBe(
      `<|im_start|>system\n${QWEN_DEFAULT_SYSTEM}<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n`,
    )
  })

  it('uses a leading system message instead, and renders later ones in place', () => {
    const messages: ChatMessage[] = [
      { role: 'system', content: 'Be brief.' },
      { role: 'user', content: 'Q' },
      { role: 'system', content: 'Later.' },
    ]
    expect(text(renderQwen2Prompt(messages, []))).toBe(
      '<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nQ<|im_end|>\n<|im_start|>system\nLater.<|im_end|>\n<|im_start|>assistant\n',
    )
  })

  it('renders tools in the system block and calls and results as the template does', () => {
    const tools: ChatTool[] = [{ type: 'function', function: { name: 'f', parameters: { type: 'object' } } }]
    const messages: ChatMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'f', arguments: '{"a":1}' } }] },
      { role: 'tool', content: 'r1', tool_call_id: 'c1' },
      { role: 'tool', content: 'r2', tool_call_id: 'c2' },
    ]
    const rendered = text(renderQwen2Prompt(messages, tools))
    expect(rendered).toContain('<tools>\n{"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}\n</tools>')
    expect(rendered).toContain('<|im_start|>assistant\n<tool_call>\n{"name": "f", "arguments": {"a": 1}}\n</tool_call><|im_end|>\n')
    // Consecutive tool results share one user turn.
    expect(rendered).toContain('<|im_start|>user\n<tool_response>\nr1\n</tool_response>\n<tool_response>\nr2\n</tool_response><|im_end|>\n')
  })
})

describe('countTemplateTokens', () => {
  it('counts each special token as one and the text between them with the tokenizer', () => {
    const pieces = renderQwen2Prompt([{ role: 'user', content: 'Hello world' }], [])
    // Reassembled independently: specials + the text runs between them.
    const runs = text(pieces).split(/<\|im_start\|>|<\|im_end\|>/)
    const specials = (text(pieces).match(/<\|im_(start|end)\|>/g) ?? []).length
    expect(countTemplateTokens(pieces, o200kTokenizer)).toBe(specials + runs.reduce((n, run) => n + o200kTokenizer.count(run), 0))
  })
})

describe('countTemplateTokens with the exact Qwen2.5 tokenizer', () => {
  const qwen = loadTokenizer('qwen2.5')
  const reference = loadQwenReference(readQwenTokenizerJson())
  const tools: ChatTool[] = [
    {
      type: 'function',
      function: {
        name: 'get_weather',
        description: 'Weather for a city, today or on a date.',
        parameters: {
          type: 'object',
          properties: { city: { type: 'string' }, date: { type: 'string', description: 'YYYY-MM-DD' } },
          required: ['city'],
        },
      },
    },
    { type: 'function', function: { name: 'now', parameters: { type: 'object', properties: {} } } },
  ]
  const conversations: Record<string, [ChatMessage[], ChatTool[]]> = {
    'no system': [[{ role: 'user', content: 'Hello world' }], []],
    system: [
      [
        { role: 'system', content: 'You are terse. Answer in one line.' },
        { role: 'user', content: 'What is 12345 × 678?' },
        { role: 'assistant', content: '8,369,910.' },
        { role: 'user', content: '你好世界 — and in Chinese? 👋' },
      ],
      [],
    ],
    'later system message': [
      [
        { role: 'user', content: 'Q' },
        { role: 'system', content: 'Later.\n\n  Indented\ttabs  ' },
      ],
      [],
    ],
    'tools, tool calls and tool results': [
      [
        { role: 'user', content: 'Weather in Zürich and the time?' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [
            { id: 'c1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Zürich","date":"2025-01-31"}' } },
            { id: 'c2', type: 'function', function: { name: 'now', arguments: '{}' } },
          ],
        },
        { role: 'tool', content: '{"temp_c": -2.5, "sky": "snow"}', tool_call_id: 'c1' },
        { role: 'tool', content: '2025-01-31T08:15:00+01:00', tool_call_id: 'c2' },
        { role: 'assistant', content: 'It is −2.5 °C and snowing; 08:15.' },
        { role: 'user', content: 'Thanks <3' },
      ],
      tools,
    ],
    'tools with a system message, content beside calls, invalid arguments': [
      [
        { role: 'system', content: 'Use tools.' },
        { role: 'user', content: 'go' },
        { role: 'assistant', content: 'Calling.', tool_calls: [{ id: 'c', type: 'function', function: { name: 'now', arguments: 'not json' } }] },
        { role: 'tool', content: '<tool_call> inside a result', tool_call_id: 'c' },
      ],
      tools,
    ],
  }

  it.each(Object.entries(conversations))('equals the reference encoding of the rendered prompt: %s', (_name, [messages, tools]) => {
    const pieces = renderQwen2Prompt(messages, tools)
    const ids = reference.encode(text(pieces))
    expect(countTemplateTokens(pieces, qwen)).toBe(ids.length)
    expect(qwen.encode(text(pieces))).toEqual(ids)
    // The specials of the frame are single ids.
    expect(ids.filter((id) => id === 151644)).toHaveLength(text(pieces).split('<|im_start|>').length - 1)
  })

  it('costs 21 tokens of default system block, content + 5 per message and 3 for the generation prompt', () => {
    const count = (messages: ChatMessage[]) => countTemplateTokens(renderQwen2Prompt(messages, []), qwen)
    const system = `<|im_start|>system\n${QWEN_DEFAULT_SYSTEM}<|im_end|>\n`
    expect(reference.encode(system)).toHaveLength(21)
    const contents = ['Hello world', 'What is 12345 × 678?', '你好世界', 'Thanks!']
    for (const content of contents) {
      expect(count([{ role: 'user', content }])).toBe(21 + qwen.count(content) + 5 + 3)
      expect(count([{ role: 'user', content }, { role: 'assistant', content }])).toBe(21 + 2 * (qwen.count(content) + 5) + 3)
    }
    expect(count([{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Hi' }])).toBe(
      qwen.count('Be brief.') + 5 + qwen.count('Hi') + 5 + 3,
    )
  })
})
