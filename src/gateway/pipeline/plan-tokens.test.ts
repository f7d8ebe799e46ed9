import { describe, expect, it } from 'vitest'
import { GatewayError } from '../errors'
import { countTemplateTokens, renderQwen2Prompt } from '../tokens/chat-template'
import { o200kTokenizer } from '../tokens/gpt-tokenizer'
import type { Tokenizer } from '../tokens/tokenizer'
import { DEFAULT_MAX_TOKENS, planTokens } from './plan-tokens'
import { validateChatRequest } from './validate-request'

function spied(): Tokenizer & { calls: number } {
  const tokenizer = {
    ...o200kTokenizer,
    calls: 0,
    count: (text: string) => {
      tokenizer.calls++
      return o200kTokenizer.count(text)
    },
  }
  return tokenizer
}

const request = (content: string, maxTokens?: number) =>
  validateChatRequest({ model: 'm', messages: [{ role: 'user', content }], ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) })
const exactCount = (content: string) => countTemplateTokens(renderQwen2Prompt([{ role: 'user', content }], []), o200kTokenizer)

describe('planTokens', () => {
  it('skips counting while the byte bound proves the prompt fits, yet reports the exact count', () => {
    const tokenizer = spied()
    const content = 'A question that fits easily'
    const plan = planTokens({ tokenizer, contextWindow: 32_768 }, request(content))
    expect(plan.maxTokens).toBe(DEFAULT_MAX_TOKENS)
    expect(tokenizer.calls).toBe(0)
    expect(plan.promptTokens).toBe(exactCount(content))
    expect(plan.promptTokens).toBe(exactCount(content))
    expect(tokenizer.calls).toBeGreaterThan(0)
  })

  it('counts exactly when the bound is not enough, and lowers max_tokens to what is left', () => {
    const tokenizer = spied()
    const content = 'word '.repeat(300) // 1,500 bytes, ~300 tokens
    const window = exactCount(content) + 32 + 500
    const plan = planTokens({ tokenizer, contextWindow: window }, request(content, 2_000))
    expect(tokenizer.calls).toBeGreaterThan(0)
    expect(plan.promptTokens).toBe(exactCount(content))
    expect(plan.maxTokens).toBe(500)
  })

  it('keeps a small max_tokens when it fits', () => {
    const plan = planTokens({ tokenizer: o200kTokenizer, contextWindow: 4_096 }, request('Hi', 10))
    expect(plan.maxTokens).toBe(10)
    expect(plan.promptTokens).toBe(exactCount('Hi'))
  })

  it('refuses a prompt that leaves fewer than 64 tokens for the reply', () => {
    const content = 'word '.repeat(300)
    const window = exactCount(content) + 32 + 63
    let error: unknown
    try {
      planTokens({ tokenizer: o200kTokenizer, contextWindow: window }, request(content, 10))
    } catch (thrown) {
      error = thrown
    }
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' })
    expect(planTokens({ tokenizer: o200kTokenizer, contextWindow: window + 1 }, request(content, 10)).maxTokens).toBe(10)
  })
})
