import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { constructLlmApi, type BaseLlmApi } from '@continuedev/openai-adapters'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeModelServer, type FakeModelServer } from '../test-kit/fake-model-server'
import { startTestGateway, type TestGateway } from './harness'

// Continue's tab autocomplete, as its own adapter library calls Mortar: `completionStream`
// (POST {apiBase}/completions, streamed) with a FIM-rendered prompt.

const MODEL = DEFAULT_MODEL_ID
const FIM = '<|fim_prefix|>function add(a, b) {\n  return <|fim_suffix|>\n}<|fim_middle|>'

async function complete(api: BaseLlmApi, prompt: string): Promise<{ text: string; finish: Array<string | null> }> {
  let text = ''
  const finish: Array<string | null> = []
  for await (const chunk of api.completionStream({ model: MODEL, prompt, max_tokens: 64, stream: true }, new AbortController().signal)) {
    for (const choice of chunk.choices) {
      text += choice.text
      finish.push(choice.finish_reason)
    }
  }
  return { text, finish: finish.filter((reason) => reason !== null) }
}

describe('@continuedev/openai-adapters completionStream', () => {
  let gw: TestGateway
  let fake: FakeModelServer
  let forwarding: TestGateway
  beforeAll(async () => {
    fake = await startFakeModelServer({ completions: true })
    ;[gw, forwarding] = await Promise.all([startTestGateway(), startTestGateway(['--upstream', fake.url])])
  })
  afterAll(async () => {
    await Promise.all([gw.close(), forwarding.close()])
    await fake.close()
  })

  it('gets the scripted model’s reply: the FIM prompt repeated', async () => {
    const api = constructLlmApi({ provider: 'openai', apiKey: gw.ownerKey, apiBase: `${gw.url}/v1/` })
    expect(api).toBeDefined()
    expect(await complete(api as BaseLlmApi, FIM)).toEqual({ text: FIM, finish: ['stop'] })
  })

  it('gets a model server’s reply, forwarded to its /v1/completions', async () => {
    const api = constructLlmApi({ provider: 'vllm', apiKey: forwarding.ownerKey, apiBase: `${forwarding.url}/v1/` })
    expect(await complete(api as BaseLlmApi, FIM)).toEqual({ text: 'Hello from the model', finish: ['stop'] })
    const sent = await fake.nextRequest()
    expect(sent.path).toBe('/v1/completions')
    expect(sent.body).toMatchObject({ prompt: FIM, max_tokens: 64, stream: true })
  })
})
