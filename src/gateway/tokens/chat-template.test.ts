import { describe, expect, it } from 'vitest'
import type { ChatMessage, ChatTool } from '../../shared/api/chat-request'
import { countTemplateTokens, QWEN_DEFAULT_SYSTEM, renderQwen2Prompt, type TemplatePiece } from './chat-template'
import { o200kTokenizer } from './gpt-tokenizer'

const text = (pieces: TemplatePiece[]) => pieces.map((p) => (typeof p === 'string' ? p : p.special)).join('')

describe('renderQwen2Prompt', () => {
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
