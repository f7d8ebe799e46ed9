import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { defaultFakeBehavior, startFakeModelServer, type FakeModelServer, type FakeReplay } from '../test-kit/fake-model-server'
import { startForwardingGateway } from '../test-kit/forwarding-gateway'
import { loadRecording, recordingNames, type RecordingMeta } from './fixtures/recordings'
import { dataPayloads, readEvents, startTestGateway, userMessage, type TestGateway } from './harness'
import { expectEnvelope, expectErrorPayload } from '../test-kit/expect-envelope'

// Recordings of what vLLM, llama.cpp, Ollama, SGLang and TGI send (fixtures/recordings), replayed
// through `mortar serve --upstream` into the openai SDK: the reply must arrive whole.

let fake: FakeModelServer
let gw: TestGateway
beforeAll(async () => {
  const started = await startForwardingGateway({ name: 'replay' })
  fake = started.fake
  gw = started.gw
  return started.close
})
afterEach(() => {
  fake.behavior = { ...defaultFakeBehavior(), name: 'replay' }
})

const replay = (replayed: FakeReplay) => {
  fake.behavior.mode = 'replay'
  fake.behavior.replay = replayed
}

interface Received {
  content: string
  reasoning: string
  toolCalls: Array<{ index: number; id: string; name: string; arguments: string }>
  finishReason: string | null
  usage: unknown
}

/** A streamed reply as the openai SDK hands it over, put together as a client does. */
async function streamThroughSdk(): Promise<Received> {
  const stream = await gw.client().chat.completions.create({
    messages: [{ role: 'user', content: 'hi' }],
    model: DEFAULT_MODEL_ID,
    stream: true,
    stream_options: { include_usage: true },
  })
  const received: Received = { content: '', reasoning: '', toolCalls: [], finishReason: null, usage: undefined }
  for await (const chunk of stream) {
    if (chunk.usage) received.usage = chunk.usage
    const choice = chunk.choices[0]
    if (choice === undefined) continue
    const delta = choice.delta as (typeof choice.delta & { reasoning_content?: string }) | undefined
    received.content += delta?.content ?? ''
    received.reasoning += delta?.reasoning_content ?? ''
    for (const piece of delta?.tool_calls ?? []) {
      expect(typeof piece.index).toBe('number')
      const call = (received.toolCalls[piece.index] ??= { index: piece.index, id: '', name: '', arguments: '' })
      if (piece.id !== undefined) {
        // id, type and name only on a call's first piece.
        expect(call.id).toBe('')
        call.id = piece.id
      } else {
        expect(piece.function?.name).toBeUndefined()
        expect(piece.type).toBeUndefined()
      }
      call.name += piece.function?.name ?? ''
      call.arguments += piece.function?.arguments ?? ''
    }
    if (choice.finish_reason !== null) received.finishReason = choice.finish_reason
  }
  return received
}

function expectWhole(received: Received, expected: RecordingMeta['expect']) {
  expect(received.content).toBe(expected.content ?? '')
  expect(received.reasoning).toBe(expected.reasoning ?? '')
  expect(received.toolCalls).toEqual(expected.toolCalls ?? [])
  expect(received.finishReason).toBe(expected.finishReason)
  if (expected.usage !== undefined) expect(received.usage).toEqual(expected.usage)
  const record = gw.completions.at(-1)
  expect(record?.outcome).toBe('finished')
  expect(record?.finishReason).toBe(expected.finishReason)
  expect(record?.finishReasonDerived).toBe(expected.finishReasonDerived === true)
}

const recordings = recordingNames().map(loadRecording)

describe('recorded streams reach the openai SDK whole', () => {
  for (const { name, meta, replay: replayed } of recordings.filter((r) => r.meta.expect.error === undefined)) {
    it(`${name}: ${meta.case}`, async () => {
      replay(replayed)
      expectWhole(await streamThroughSdk(), meta.expect)
    })
  }

  it('covers every server named in the field notes, with text, tool calls and reasoning', () => {
    for (const server of ['vllm', 'llamacpp', 'ollama', 'sglang', 'tgi']) {
      const cases = recordings.filter((r) => r.name.startsWith(`${server}-`)).map((r) => r.name.slice(server.length + 1))
      expect(cases.some((c) => c.includes('text'))).toBe(true)
      expect(cases.some((c) => c.includes('tool-call'))).toBe(true)
      if (server !== 'tgi') expect(cases.some((c) => c.includes('reasoning'))).toBe(true)
    }
  })
})

describe('recorded JSON replies reach the openai SDK whole', () => {
  for (const { name, meta, replay: replayed } of recordings.filter((r) => r.meta.contentType.startsWith('application/json'))) {
    it(`${name}, asked for stream: false`, async () => {
      replay(replayed)
      const completion = await gw.client().chat.completions.create({ messages: [{ role: 'user', content: 'hi' }], model: DEFAULT_MODEL_ID, stream: false })
      const message = completion.choices[0]!.message as typeof completion.choices[0]['message'] & { reasoning_content?: string }
      expect(message.content ?? '').toBe(meta.expect.content ?? '')
      expect(message.reasoning_content).toBe(meta.expect.reasoning)
      expect((message.tool_calls ?? []).map((call, index) => ({ index, id: call.id, name: 'function' in call ? call.function.name : '', arguments: 'function' in call ? call.function.arguments : '' }))).toEqual(
        meta.expect.toolCalls ?? [],
      )
      expect(completion.choices[0]!.finish_reason).toBe(meta.expect.finishReason)
      expect(completion.usage).toEqual(meta.expect.usage)
    })
  }
})

describe('SGLang: HTTP 200, an error event, then [DONE]', () => {
  it('is one upstream_error event for the client, and no [DONE]', async () => {
    const { replay: replayed } = loadRecording('sglang-error')
    replay(replayed)
    const events = await readEvents(await gw.post('/v1/chat/completions', userMessage('hi')))
    expect(events).not.toContain('data: [DONE]')
    expectErrorPayload(dataPayloads(events).at(-1), { code: 'upstream_error', message: /longer than the model's context length/ })
    expect(gw.completions.at(-1)?.outcome).toBe('failed')
  })
})

describe('how a stream ends', () => {
  it('ends the client stream at [DONE] though the server keeps its connection open, then hangs up on it', async () => {
    const { meta, replay: replayed } = loadRecording('vllm-text')
    replay({ ...replayed, ending: 'keep-open' })
    const before = fake.requests.length
    expectWhole(await streamThroughSdk(), meta.expect)
    const request = fake.requests[before]!
    await request.ended
    expect(request.hungUp).toBe(true)
  })

  it('is complete when the server closes cleanly after a finish chunk, and the client gets [DONE]', async () => {
    replay(loadRecording('llamacpp-2024-no-done').replay)
    const events = await readEvents(await gw.post('/v1/chat/completions', { ...userMessage('hi'), stream_options: { include_usage: true } }))
    expect(events.at(-1)).toBe('data: [DONE]')
    expect(dataPayloads(events).at(-2)?.choices).toEqual([{ index: 0, logprobs: null, finish_reason: 'stop' }])
  })

  it('still fails when the connection is reset after the finish chunk', async () => {
    replay({ ...loadRecording('llamacpp-2024-no-done').replay, ending: 'reset' })
    const events = await readEvents(await gw.post('/v1/chat/completions', userMessage('hi')))
    expect(events).not.toContain('data: [DONE]')
    expectErrorPayload(dataPayloads(events).at(-1), { code: 'upstream_error' })
  })
})

describe('the idle timeout between chunks', () => {
  const firstChunkOnly = (): FakeReplay => {
    const { body } = loadRecording('vllm-text').replay
    return { body: body.slice(0, body.indexOf('\n\n', body.indexOf('Hello')) + 2), contentType: 'text/event-stream', ending: 'keep-open' }
  }

  const expectIdleFailure = async (gateway: TestGateway, server: FakeModelServer, seconds: number) => {
    server.behavior.mode = 'replay'
    server.behavior.replay = firstChunkOnly()
    const before = server.requests.length
    const events = await readEvents(await gateway.post('/v1/chat/completions', userMessage('hi')))
    expect(dataPayloads(events).map((chunk) => (chunk.choices as Array<{ delta?: { content?: string } }> | undefined)?.[0]?.delta?.content)).toContain('Hello')
    expect(events).not.toContain('data: [DONE]')
    expectErrorPayload(dataPayloads(events).at(-1), { code: 'upstream_error', message: `sent nothing for ${seconds} s` })
    const request = server.requests[before]!
    await request.ended
    expect(request.hungUp).toBe(true)
  }

  it('is set by --upstream-idle-timeout and ends a silent stream with upstream_error', async () => {
    const server = await startFakeModelServer()
    const gateway = await startTestGateway(['--upstream', server.url, '--upstream-idle-timeout', '0.2'])
    try {
      await expectIdleFailure(gateway, server, 0.2)
    } finally {
      await gateway.close()
      await server.close()
    }
  })

  it('also ends a JSON reply whose body stops coming', async () => {
    const server = await startFakeModelServer()
    const gateway = await startTestGateway(['--upstream', server.url, '--upstream-idle-timeout', '0.2'])
    try {
      server.behavior.mode = 'replay'
      server.behavior.replay = { body: '{"id":"chatcmpl-1","object":"chat.com', contentType: 'application/json', ending: 'keep-open' }
      const response = await gateway.post('/v1/chat/completions', { ...userMessage('hi'), stream: false })
      await expectEnvelope(response, { status: 502, code: 'upstream_error', message: 'sent nothing for 0.2 s' })
      const request = server.requests.at(-1)!
      await request.ended
      expect(request.hungUp).toBe(true)
    } finally {
      await gateway.close()
      await server.close()
    }
  })

  it("is set by a deployment's idleTimeoutSeconds in config.json", async () => {
    const server = await startFakeModelServer()
    const home = mkdtempSync(join(tmpdir(), 'mortar-test-'))
    writeFileSync(
      join(home, 'config.json'),
      JSON.stringify({
        models: [{ id: DEFAULT_MODEL_ID, tokenizer: 'qwen2.5', deployment: { kind: 'upstream', idleTimeoutSeconds: 0.25, replicas: [{ url: server.url }] } }],
      }),
    )
    const gateway = await startTestGateway([], { home })
    try {
      await expectIdleFailure(gateway, server, 0.25)
    } finally {
      await gateway.close()
      await server.close()
    }
  })
})
