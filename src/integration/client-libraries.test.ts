import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { createOpenAI } from '@ai-sdk/openai'
import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { ChatOpenAI } from '@langchain/openai'
import { OpenAI as LlamaIndexOpenAI } from '@llamaindex/openai'
import { Agent } from '@mastra/core/agent'
import { generateObject, generateText, stepCountIs, streamText, tool, type LanguageModel } from 'ai'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { startTestGateway, type TestGateway } from './harness'

// The client libraries IDE tools and apps are built on, unmodified, against a real `mortar serve`
// with the scripted model (which repeats the last user message, and calls the first tool until the
// conversation ends with tool results). Each runs in the dialect it needs; where the Mortar dialect
// turns a library away, one test shows it doing what the spec says instead.
const MODEL = DEFAULT_MODEL_ID

let gw: TestGateway
let openaiKey: string
let mortarKey: string
beforeAll(async () => {
  gw = await startTestGateway()
  openaiKey = gw.createKey({ name: 'openai-dialect', dialect: 'openai' })
  mortarKey = gw.createKey({ name: 'mortar-dialect', dialect: 'mortar' })
})
afterAll(() => gw.close())

const baseURL = () => `${gw.url}/v1`
const AI_SDK_PROVIDERS: ReadonlyArray<readonly [string, (apiKey: string) => LanguageModel]> = [
  ['@ai-sdk/openai-compatible', (apiKey) => createOpenAICompatible({ name: 'mortar', baseURL: baseURL(), apiKey }).chatModel(MODEL)],
  ['@ai-sdk/openai .chat()', (apiKey) => createOpenAI({ baseURL: baseURL(), apiKey }).chat(MODEL)],
  // The provider's default: the Responses API (POST /v1/responses), which answers JSON unless asked to stream in any dialect.
  ['@ai-sdk/openai openai(model), the Responses API', (apiKey) => createOpenAI({ baseURL: baseURL(), apiKey })(MODEL)],
]

describe('Vercel AI SDK, in the OpenAI dialect', () => {
  for (const [provider, make] of AI_SDK_PROVIDERS) {
    const model = () => make(openaiKey)
    describe(provider, () => {
      it('generateText', async () => {
        const result = await generateText({ model: model(), prompt: 'Hello there', maxRetries: 0 })
        expect(result.text).toBe('Hello there')
        expect(result.finishReason).toBe('stop')
        expect(result.usage.outputTokens).toBeGreaterThan(0)
      })

      it('generateObject', async () => {
        const result = await generateObject({
          model: model(),
          schema: z.object({ city: z.string(), temp_c: z.number() }),
          prompt: JSON.stringify({ city: 'Paris', temp_c: 21 }),
          maxRetries: 0,
        })
        expect(result.object).toEqual({ city: 'Paris', temp_c: 21 })
      })

      it('streamText', async () => {
        const result = streamText({ model: model(), prompt: 'one two three', maxRetries: 0 })
        let text = ''
        for await (const piece of result.textStream) text += piece
        expect(text).toBe('one two three')
        expect(await result.finishReason).toBe('stop')
      })

      it('a tool loop: the call, its result, then the answer', async () => {
        const calls: string[] = []
        const result = await generateText({
          model: model(),
          prompt: 'What is the weather in Paris?',
          tools: {
            get_weather: tool({
              description: 'Current weather for a city',
              inputSchema: z.object({ city: z.string() }),
              execute: async ({ city }) => {
                calls.push(city)
                return { temp_c: 21, sky: 'clear' }
              },
            }),
          },
          stopWhen: stepCountIs(3),
          maxRetries: 0,
        })
        // The scripted model fills each required argument with an empty value of its type.
        expect(calls).toEqual([''])
        expect(result.steps.map((step) => step.finishReason)).toEqual(['tool-calls', 'stop'])
        expect(result.text).toBe('What is the weather in Paris?')
      })
    })
  }

  it('openai(model) is the Responses API: its replies are responses', async () => {
    const result = await generateText({ model: createOpenAI({ baseURL: baseURL(), apiKey: mortarKey })(MODEL), prompt: 'Which API?', maxRetries: 0 })
    expect(result.response.id).toMatch(/^resp_/)
    // The Responses API answers JSON unless asked to stream, in the Mortar dialect too.
    expect(result.text).toBe('Which API?')
  })
})

describe('Vercel AI SDK, in the Mortar dialect', () => {
  it('generateText gets the event stream the spec sends when `stream` is left out, and refuses it', async () => {
    const model = AI_SDK_PROVIDERS[0]![1](mortarKey)
    await expect(generateText({ model, prompt: 'Hello', maxRetries: 0 })).rejects.toThrow('Invalid JSON response')
  })
})

describe('Mastra, in the OpenAI dialect', () => {
  it('agent.generate', async () => {
    const agent = new Agent({
      name: 'mortar-test',
      instructions: 'Answer briefly.',
      model: { providerId: 'mortar', modelId: MODEL, url: baseURL(), apiKey: openaiKey },
    })
    const result = await agent.generate('Hello Mastra')
    expect(result.text).toBe('Hello Mastra')
  })
})

describe('LlamaIndex (@llamaindex/openai) streaming chat', () => {
  const chat = async (apiKey: string) => {
    const llm = new LlamaIndexOpenAI({ model: MODEL, apiKey, baseURL: baseURL(), maxRetries: 0 })
    const stream = await llm.chat({ messages: [{ role: 'user', content: 'Hello LlamaIndex' }], stream: true })
    let text = ''
    for await (const chunk of stream) text += chunk.delta
    return text
  }

  it('streams the reply in the OpenAI dialect', async () => {
    expect(await chat(openaiKey)).toBe('Hello LlamaIndex')
  })

  it('throws on the Mortar dialect\'s finish chunk, which has no delta as the spec says', async () => {
    await expect(chat(mortarKey)).rejects.toThrow("Cannot read properties of undefined (reading 'tool_calls')")
  })
})

describe('LangChain (@langchain/openai) ChatOpenAI', () => {
  // LangChain passes `stream` itself, so it works in both dialects.
  for (const dialect of ['openai', 'mortar'] as const) {
    const model = () => new ChatOpenAI({ model: MODEL, apiKey: dialect === 'openai' ? openaiKey : mortarKey, maxRetries: 0, configuration: { baseURL: baseURL() } })

    it(`invoke, in the ${dialect} dialect`, async () => {
      const message = await model().invoke('Hello LangChain')
      expect(message.content).toBe('Hello LangChain')
    })

    it(`stream, in the ${dialect} dialect`, async () => {
      let text = ''
      for await (const chunk of await model().stream('Hello stream')) text += String(chunk.content)
      expect(text).toBe('Hello stream')
    })
  }
})
