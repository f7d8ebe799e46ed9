import { describe, expect, it } from 'vitest'
import { chatGenerationRequest } from '../../endpoints/chat-completions/chat-completions-endpoint'
import { validateChatRequest } from '../../pipeline/validate-request'
import { loadTokenizer } from '../../tokens/tokenizer-registry'
import { StopController } from '../../generation/stop-signal'
import type { GenerationEvent } from '../model-backend'
import { ScriptedBackend } from './scripted-backend'

const qwen = loadTokenizer('qwen2.5')
const backend = new ScriptedBackend({ deployment: 't', tokenizer: qwen, tokensPerSecond: 0 })

async function reply(body: Record<string, unknown>, maxTokens = 1_000): Promise<GenerationEvent[]> {
  const request = chatGenerationRequest(validateChatRequest({ model: 'm', ...body }))
  const started = await backend.start({ request, maxTokens, affinityKey: undefined, signal: new StopController() })
  const events: GenerationEvent[] = []
  await started.run((event) => void events.push(event))
  return events
}

const say = (content: string) => ({ messages: [{ role: 'user', content }] })
const contents = (events: GenerationEvent[]) =>
  events.flatMap((e) => (e.kind === 'content' ? [{ text: e.text, tokens: e.tokens }] : []))

describe('ScriptedBackend with the Qwen2.5 tokenizer', () => {
  it("streams its reply in Qwen's own tokens, one per event", async () => {
    // [9707, 11, 1879, 0, 220, 16, 17, 18]: Qwen splits every digit.
    const events = await reply(say('Hello, world! 123'))
    expect(contents(events)).toEqual(['Hello', ',', ' world', '!', ' ', '1', '2', '3'].map((text) => ({ text, tokens: 1 })))
    expect(events.at(-1)).toEqual({ kind: 'finish', reason: 'stop' })
  })

  it('keeps multi-byte characters whole and counts every token', async () => {
    const text = '你好世界 👩‍👩‍👧 Grüße'
    const pieces = contents(await reply(say(text)))
    expect(pieces.map((p) => p.text).join('')).toBe(text)
    expect(pieces.reduce((n, p) => n + p.tokens, 0)).toBe(qwen.count(text))
    expect(pieces.slice(0, 2)).toEqual([
      { text: '你好', tokens: 1 },
      { text: '世界', tokens: 1 },
    ])
  })

  it('cuts the reply at max_tokens, counted in Qwen tokens', async () => {
    const events = await reply(say('Hello, world! 123'), 3)
    expect(contents(events).map((p) => p.text)).toEqual(['Hello', ',', ' world'])
    expect(events.at(-1)).toEqual({ kind: 'finish', reason: 'length' })
  })

  it('counts a tool call in Qwen tokens, <tool_call> being one of them', async () => {
    const tools = [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }]
    const events = await reply({ ...say('Weather?'), tools, tool_choice: 'required' })
    const whole = '<tool_call>\n{"name": "get_weather", "arguments": {"city":""}}\n</tool_call>'
    expect(qwen.encode(whole)[0]).toBe(151657)
    // The arguments stream as the real tokens of their JSON, each piece counting its own tokens.
    const argumentEvents = events.slice(1, -1)
    const pieces = [...qwen.decodePieces(qwen.encode('{"city":""}'))]
    expect(argumentEvents.map((e) => (e.kind === 'tool_call' ? e.delta.function?.arguments : undefined))).toEqual(pieces.map((p) => p.text))
    expect(argumentEvents.map((e) => ('tokens' in e ? e.tokens : 0))).toEqual(pieces.map((p) => p.tokens))
    // The first piece carries the framing, so the call costs exactly what the whole call counts.
    const total = events.reduce((n, e) => n + ('tokens' in e ? e.tokens : 0), 0)
    expect(total).toBe(qwen.count(whole))
    expect(events.at(-1)).toEqual({ kind: 'finish', reason: 'tool_calls' })
  })
})
