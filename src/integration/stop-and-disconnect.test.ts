import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { dataPayloads, startTestGateway, streamEvents, userMessage, type TestGateway, nextRegisteredGeneration } from './harness'

// Paced so that a reply is still being generated when the test acts on it; every wait below is on
// an event (a frame arriving, the registry going idle), never a sleep.
const LONG_TEXT = Array.from({ length: 200 }, (_, i) => `word${i}`).join(' ')

let gw: TestGateway
beforeAll(async () => {
  gw = await startTestGateway(['--scripted-tps', '200'])
})
afterAll(() => gw.close())

async function startStream(key: string, extra: Record<string, unknown> = {}) {
  const controller = new AbortController()
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${key}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ ...userMessage(LONG_TEXT), ...extra }),
    signal: controller.signal,
  })
  const id = response.headers.get('x-mortar-request-id')!
  const events = streamEvents(response)
  const seen: string[] = []
  // Wait for the role chunk and the first content chunk: the generation is live. (Not `for await
  // … break`: breaking would cancel the body, which is a disconnect.)
  while (seen.length < 2) {
    const next = await events.next()
    if (next.done) throw new Error('the stream ended early')
    seen.push(next.value)
  }
  return { id, events, seen, controller }
}

async function drain(events: AsyncGenerator<string>, seen: string[]): Promise<string[]> {
  for await (const event of events) seen.push(event)
  return seen
}

const stop = (id: string, key: string) =>
  fetch(`${gw.url}/v1/generations/${id}/stop`, { method: 'POST', headers: { Authorization: `Bearer ${key}` } })

describe('POST /v1/generations/{id}/stop', () => {
  it('stops a running stream of the own org: no finish chunk, then usage and [DONE]', async () => {
    const { id, events, seen } = await startStream(gw.ownerKey, { stream_options: { include_usage: true } })
    const response = await stop(id, gw.ownerKey)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ stopped: true, id })

    const all = await drain(events, seen)
    expect(all.at(-1)).toBe('data: [DONE]')
    const chunks = dataPayloads(all)
    const finishes = chunks.filter((c) => (c.choices as Array<{ finish_reason: unknown }>)[0]?.finish_reason != null)
    expect(finishes).toEqual([])
    const usage = chunks.at(-1)?.usage as { completion_tokens: number }
    const contentChunks = chunks.filter((c) => (c.choices as Array<{ delta?: { content?: string } }>)[0]?.delta?.content !== undefined)
    // Tokens generated before the stop are counted, and the reply was really cut short.
    expect(usage.completion_tokens).toBe(contentChunks.length)
    expect(contentChunks.length).toBeLessThan(400)
    await gw.server.gateway.generations.whenIdle()
  })

  it('answers 404 for another org, an unknown ID, a second stop and a finished generation, alike', async () => {
    const otherOrgKey = gw.createKey({ org: 'other-org' })
    const { id, events, seen } = await startStream(gw.ownerKey)

    const foreign = await stop(id, otherOrgKey)
    expect(foreign.status).toBe(404)
    expect(await foreign.json()).toEqual({ stopped: false, id })

    const unknownId = 'chatcmpl-000000000000000000000000'
    const unknown = await stop(unknownId, gw.ownerKey)
    expect(unknown.status).toBe(404)
    expect(await unknown.json()).toEqual({ stopped: false, id: unknownId })

    // The other org's attempt did not stop it: the owner still can, once.
    expect((await stop(id, gw.ownerKey)).status).toBe(200)
    const twice = await stop(id, gw.ownerKey)
    expect(twice.status).toBe(404)
    expect(await twice.json()).toEqual({ stopped: false, id })
    await drain(events, seen)

    const done = await gw.client().chat.completions.create({ ...userMessage('short'), stream: false } as never)
    const finished = await stop(done.id, gw.ownerKey)
    expect(finished.status).toBe(404)
    expect(await finished.json()).toEqual({ stopped: false, id: done.id })
  })

  it('needs a key', async () => {
    const response = await fetch(`${gw.url}/v1/generations/chatcmpl-x/stop`, { method: 'POST' })
    expect(response.status).toBe(401)
  })

  it('stops a non-streaming generation, which returns what it had', async () => {
    const pending = gw.client().chat.completions.create({ ...userMessage(LONG_TEXT), stream: false } as never).withResponse()
    // The ID is only in the response; find the live generation through the registry's stop instead:
    // poll-free, because the request is registered before its body is generated.
    const id = await nextRegisteredGeneration(gw)
    expect((await stop(id, gw.ownerKey)).status).toBe(200)
    const { data } = await pending
    expect(data.id).toBe(id)
    expect(data.choices[0]?.finish_reason).toBe('stop')
    const content = data.choices[0]?.message.content ?? ''
    expect(LONG_TEXT.startsWith(content)).toBe(true)
    expect(content.length).toBeLessThan(LONG_TEXT.length)
  })
})

describe('closing the connection', () => {
  it('stops the generation mid-stream', async () => {
    const { id, controller } = await startStream(gw.ownerKey)
    controller.abort()
    await gw.server.gateway.generations.whenIdle()
    expect(gw.server.gateway.generations.size).toBe(0)
    // It is gone, not merely detached: a stop now finds nothing.
    expect((await stop(id, gw.ownerKey)).status).toBe(404)
  })

  it('stops a generation whose non-streaming client gives up before the first byte', async () => {
    const controller = new AbortController()
    const registered = nextRegisteredGeneration(gw)
    const request = gw
      .client()
      .chat.completions.create({ ...userMessage(LONG_TEXT), stream: false } as never, { signal: controller.signal })
    await registered
    controller.abort()
    await expect(request).rejects.toThrow()
    await gw.server.gateway.generations.whenIdle()
    expect(gw.server.gateway.generations.size).toBe(0)
  })

  it('stops a stream the openai SDK aborts', async () => {
    const stream = await gw.client().chat.completions.create({ ...userMessage(LONG_TEXT), model: DEFAULT_MODEL_ID, stream: true } as never)
    let received = 0
    for await (const _chunk of stream as unknown as AsyncIterable<unknown>) {
      if (++received === 3) {
        (stream as unknown as { controller: AbortController }).controller.abort()
        // Chunks the SDK had already read from the socket may still be yielded: stop reading here.
        break
      }
    }
    expect(received).toBe(3)
    await gw.server.gateway.generations.whenIdle()
    expect(gw.server.gateway.generations.size).toBe(0)
  })
})
