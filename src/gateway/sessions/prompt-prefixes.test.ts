import { describe, expect, it } from 'vitest'
import { normalizeChatRequest, chatCompletionRequestSchema } from '../../shared/api/chat-request'
import { countTemplateTokens, renderQwen2Prompt } from '../tokens/chat-template'
import { loadTokenizer } from '../tokens/tokenizer-registry'
import { sessionPrefixes, type PrefixInput } from './prompt-prefixes'

const qwen = loadTokenizer('qwen2.5')
const tokenizerFor = (model: string | null) => (model === 'unknown' ? null : qwen)

let n = 0
function turn(body: object, patch: Partial<PrefixInput> = {}): PrefixInput {
  n++
  return { id: `ex_${n}`, started_at: `2026-12-01T08:00:0${n % 10}Z`, model: 'm', endpoint: '/v1/chat/completions', body: JSON.stringify(body), truncated: false, cached_tokens: null, ...patch }
}

/** The prompt's token count the way plan-tokens counts it: an independent path to the same number. */
function counted(body: object): number {
  const request = normalizeChatRequest(chatCompletionRequestSchema.parse(body), body)
  return countTemplateTokens(renderQwen2Prompt(request.messages, request.tools), qwen)
}

const system = { role: 'system', content: 'You are a careful coding agent. Answer briefly.' }
const first = { messages: [system, { role: 'user', content: 'List the files in src/ please.' }] }
const second = {
  messages: [...first.messages, { role: 'assistant', content: 'src/ has index.ts and util.ts.' }, { role: 'user', content: 'Open util.ts' }],
}

describe('sessionPrefixes', () => {
  it('counts a follow-up turn as sharing the whole previous prompt, with no difference', async () => {
    const [a, b] = await sessionPrefixes([turn(first), turn(second, { cached_tokens: 20 })], tokenizerFor)
    expect(a?.prompt_tokens).toBe(counted(first))
    expect(a?.shared_prefix_tokens).toBeNull()
    expect(b?.prompt_tokens).toBe(counted(second))
    expect(b?.previous_id).toBe(a?.id)
    expect(b?.shared_prefix_tokens).toBe(counted(first))
    expect(b?.first_difference).toBeNull()
    expect(b?.cached_tokens).toBe(20)
    expect(b?.exact).toBe(true)
  })

  it('finds where a changed system prompt breaks the prefix, in tokens and in text', async () => {
    const changed = { messages: [{ role: 'system', content: 'You are a careless coding agent. Answer briefly.' }, first.messages[1]] }
    const [, b] = await sessionPrefixes([turn(first), turn(changed)], tokenizerFor)
    // <|im_start|> is one token; then "system\nYou are a" is what both say before "careful"/"careless".
    expect(b?.shared_prefix_tokens).toBe(1 + qwen.count('system\nYou are a'))
    expect(b?.first_difference?.before.endsWith('system\nYou are a care')).toBe(true)
    expect(b?.first_difference?.previous.startsWith('ful coding agent')).toBe(true)
    expect(b?.first_difference?.current.startsWith('less coding agent')).toBe(true)
    expect(b?.first_difference?.offset).toBe('<|im_start|>system\nYou are a care'.length)
  })

  it('sees a change in the tools, which the template puts in the system block', async () => {
    const tool = (name: string) => ({ type: 'function', function: { name, parameters: { type: 'object', properties: {} } } })
    const [, b] = await sessionPrefixes([turn({ ...first, tools: [tool('read_file')] }), turn({ ...second, tools: [tool('write_file')] })], tokenizerFor)
    expect(b?.first_difference?.previous.startsWith('read_file')).toBe(true)
    expect(b?.first_difference?.current.startsWith('write_file')).toBe(true)
    expect(b?.shared_prefix_tokens).toBeLessThan(counted({ ...first, tools: [tool('read_file')] }))
  })

  it('says why an exchange has no count, and compares the next one with the last readable one', async () => {
    const entries = await sessionPrefixes(
      [
        turn(first),
        turn({}, { endpoint: '/v1/models' }),
        { ...turn(first), body: '{oops' },
        turn(first, { truncated: true }),
        turn(first, { model: 'unknown' }),
        turn(second),
      ],
      tokenizerFor,
    )
    expect(entries.map((e) => e.note)).toEqual([
      null,
      'not a chat completion',
      'the body is not JSON',
      'the capture was truncated, so the prompt is not whole',
      'no tokenizer for this model',
      null,
    ])
    expect(entries[5]?.previous_id).toBe(entries[0]?.id)
    expect(entries[5]?.shared_prefix_tokens).toBe(counted(first))
  })
})
