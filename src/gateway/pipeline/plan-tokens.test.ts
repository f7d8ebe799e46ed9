import { describe, expect, it } from 'vitest'
import { GatewayError } from '../errors'
import { countTemplateTokens, renderQwen2Prompt } from '../tokens/chat-template'
import { o200kTokenizer } from '../tokens/gpt-tokenizer'
import type { CountTask, Tokenizer } from '../tokens/tokenizer'
import { DEFAULT_MAX_TOKENS, planTokens } from './plan-tokens'
import { chatGenerationRequest } from '../endpoints/chat-completions/chat-completions-endpoint'
import { validateChatRequest } from './validate-request'

function spied(): Tokenizer & { calls: number; sliced: CountTask[] } {
  const tokenizer = {
    ...o200kTokenizer,
    calls: 0,
    sliced: [] as CountTask[],
    count: (text: string) => {
      tokenizer.calls++
      return o200kTokenizer.count(text)
    },
    startCount: (text: string) => {
      const task = o200kTokenizer.startCount(text)
      tokenizer.sliced.push(task)
      return task
    },
  }
  return tokenizer
}

const request = (content: string, maxTokens?: number) =>
  chatGenerationRequest(validateChatRequest({ model: 'm', messages: [{ role: 'user', content }], ...(maxTokens === undefined ? {} : { max_tokens: maxTokens }) }))
const exactCount = (content: string) => countTemplateTokens(renderQwen2Prompt([{ role: 'user', content }], []), o200kTokenizer)

describe('planTokens', () => {
  it('skips counting while the byte bound proves the prompt fits, yet reports the exact count', async () => {
    const tokenizer = spied()
    const content = 'A question that fits easily'
    const plan = await planTokens({ tokenizer, contextWindow: 32_768, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content))
    expect(plan.maxTokens).toBe(DEFAULT_MAX_TOKENS)
    expect(tokenizer.calls).toBe(0)
    expect(plan.promptTokens).toBe(exactCount(content))
    expect(plan.promptTokens).toBe(exactCount(content))
    expect(tokenizer.calls).toBeGreaterThan(0)
  })

  it('counts exactly when the bound is not enough, and lowers max_tokens to what is left', async () => {
    const tokenizer = spied()
    const content = 'word '.repeat(300) // 1,500 bytes, ~300 tokens
    const window = exactCount(content) + 32 + 500
    const plan = await planTokens({ tokenizer, contextWindow: window, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content, 2_000))
    expect(tokenizer.calls).toBeGreaterThan(0)
    expect(plan.promptTokens).toBe(exactCount(content))
    expect(plan.maxTokens).toBe(500)
  })

  it('keeps a small max_tokens when it fits', async () => {
    const plan = await planTokens({ tokenizer: o200kTokenizer, contextWindow: 4_096, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request('Hi', 10))
    expect(plan.maxTokens).toBe(10)
    expect(plan.promptTokens).toBe(exactCount('Hi'))
  })

  it('refuses a prompt that leaves fewer than 64 tokens for the reply', async () => {
    const content = 'word '.repeat(300)
    const window = exactCount(content) + 32 + 63
    const error: unknown = await planTokens({ tokenizer: o200kTokenizer, contextWindow: window, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content, 10)).catch((thrown: unknown) => thrown)
    expect(error).toBeInstanceOf(GatewayError)
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded', param: 'messages' })
    expect((await planTokens({ tokenizer: o200kTokenizer, contextWindow: window + 1, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content, 10))).maxTokens).toBe(10)
  })
  it('refuses a prompt whose lower bound (bytes / 128) leaves no room, tokenizing nothing', async () => {
    const tokenizer = spied()
    const content = 'word '.repeat(200_000) // 1 MB: at least 7,813 tokens
    const error: unknown = await planTokens({ tokenizer, contextWindow: 4_096, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content)).catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded' })
    expect((error as Error).message).toContain('uses at least 7')
    expect(tokenizer.calls).toBe(0)
    expect(tokenizer.sliced).toEqual([])
  })

  it('counts a large prompt in slices, exactly, when it may fit', async () => {
    const tokenizer = spied()
    const content = 'Lorem ipsum dolor sit amet, 12345. '.repeat(3_000) // 105 KB
    // Its byte bound (105,000) passes the window; its count (~30,000) does not.
    const plan = await planTokens({ tokenizer, contextWindow: 60_000, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content, 10))
    expect(tokenizer.sliced.length).toBeGreaterThan(0)
    expect(tokenizer.calls).toBe(0)
    expect(plan.promptTokens).toBe(exactCount(content))
    expect(await plan.counted()).toBe(exactCount(content))
    expect(plan.maxTokens).toBe(10)
  })

  it('leaves a large prompt that fits by its byte bound uncounted until asked, then counts it in slices', async () => {
    const tokenizer = spied()
    const content = 'Lorem ipsum dolor sit amet, 12345. '.repeat(3_000) // 105 KB
    const plan = await planTokens({ tokenizer, contextWindow: 200_000, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content, 10))
    expect(plan.maxTokens).toBe(10)
    expect(tokenizer.sliced).toEqual([])
    expect(tokenizer.calls).toBe(0)
    // One count, however many ask for it.
    expect(plan.counted()).toBe(plan.counted())
    const [first, second] = await Promise.all([plan.counted(), plan.counted()])
    expect(first).toBe(exactCount(content))
    expect(second).toBe(first)
    // Counted once, in slices; the count is then read without tokenizing anything.
    const tasks = tokenizer.sliced.length
    expect(tasks).toBeGreaterThan(0)
    expect(plan.promptTokens).toBe(first)
    expect([tokenizer.calls, tokenizer.sliced.length]).toEqual([0, tasks])
  })

  it('stops counting once the prompt passes the window', async () => {
    const tokenizer = spied()
    // 1 token per 5 bytes: the lower bound (bytes / 128) cannot refuse it, the count can.
    const content = 'word '.repeat(40_000)
    const error: unknown = await planTokens({ tokenizer, contextWindow: 10_000, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content)).catch((thrown: unknown) => thrown)
    expect(error).toMatchObject({ status: 400, code: 'context_length_exceeded' })
    const counted = tokenizer.sliced.reduce((sum, task) => sum + task.count, 0)
    expect(counted).toBeGreaterThan(10_000 - 32 - 64)
    expect(counted).toBeLessThan(exactCount(content) / 2)
  })

  it('refuses nothing when the window is unknown: the model server decides', async () => {
    const content = 'many words '.repeat(5_000)
    const plan = await planTokens({ tokenizer: o200kTokenizer, contextWindow: undefined, defaultMaxTokens: DEFAULT_MAX_TOKENS }, request(content, 50_000))
    expect(plan.maxTokens).toBe(50_000)
    expect(await plan.counted()).toBe(exactCount(content))
    expect(plan.promptTokens).toBe(exactCount(content))
  })

  it("uses the model's default max_tokens when the client sends none, and sends none when that is none", async () => {
    const configured = await planTokens({ tokenizer: o200kTokenizer, contextWindow: 4_096, defaultMaxTokens: 300 }, request('Hi'))
    expect(configured.maxTokens).toBe(300)
    expect((await planTokens({ tokenizer: o200kTokenizer, contextWindow: 4_096, defaultMaxTokens: undefined }, request('Hi'))).maxTokens).toBeUndefined()
    expect((await planTokens({ tokenizer: o200kTokenizer, contextWindow: 4_096, defaultMaxTokens: undefined }, request('Hi', 20))).maxTokens).toBe(20)
    // Sending none still needs room for a reply.
    const window = exactCount('x '.repeat(2_000)) + 32 + 63
    await expect(planTokens({ tokenizer: o200kTokenizer, contextWindow: window, defaultMaxTokens: undefined }, request('x '.repeat(2_000)))).rejects.toThrow(/context window/)
  })
})
