import { describe, expect, it } from 'vitest'
import type { ChatCompletion, ChatCompletionChunk } from '../../../shared/api/chat-response'
import { MortarHeader } from '../../../shared/api/headers'
import { ExchangeRun, type ExchangeClient } from './exchange-run'

const URL_BASE = 'http://127.0.0.1:7313'
const encoder = new TextEncoder()

const chunk = (delta: object, finish_reason: string | null = null): ChatCompletionChunk =>
  ({ id: 'chatcmpl-7', object: 'chat.completion.chunk', created: 1, model: 'm', choices: [{ index: 0, delta, finish_reason }] }) as ChatCompletionChunk
const frame = (data: unknown) => `data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`

/** A stream the test writes to, split wherever the test likes. */
function openStream() {
  let controller!: ReadableStreamDefaultController<Uint8Array>
  const body = new ReadableStream<Uint8Array>({ start: (c) => void (controller = c) })
  return {
    body,
    write: (text: string) => controller.enqueue(encoder.encode(text)),
    close: () => controller.close(),
    fail: (error: Error) => controller.error(error),
  }
}

const sse = (body: ReadableStream<Uint8Array>, requestId = 'chatcmpl-7') =>
  new Response(body, { status: 200, headers: { 'content-type': 'text/event-stream', [MortarHeader.requestId]: requestId } })

/** The client the run talks to, answering the chat request with `answer` and recording what it was asked. */
function client(answer: (signal: AbortSignal) => Promise<Response>, stop: ExchangeClient['stopGeneration'] = () => Promise.reject(new Error('unexpected stop'))) {
  const calls = { posted: [] as Array<{ body: unknown; headers: Record<string, string> }>, stopped: [] as string[], signal: undefined as AbortSignal | undefined }
  const fake: ExchangeClient = {
    url: (path) => `${URL_BASE}${path}`,
    postChat: (body, headers, signal) => {
      calls.posted.push({ body, headers })
      calls.signal = signal
      return answer(signal)
    },
    stopGeneration: (id) => {
      calls.stopped.push(id)
      return stop(id)
    },
  }
  return { fake, calls }
}

/** Rejects as fetch does once its signal aborts. */
const untilAborted = (signal: AbortSignal) =>
  new Promise<Response>((_, reject) => signal.addEventListener('abort', () => reject(new DOMException('The operation was aborted.', 'AbortError'))))

/** Resolves once the run's snapshot meets `ready` (subscribers are told of every change). */
function until(run: ExchangeRun, ready: (snapshot: ReturnType<ExchangeRun['snapshot']>) => boolean): Promise<void> {
  return new Promise((resolve) => {
    if (ready(run.snapshot())) return resolve()
    const unsubscribe = run.subscribe(() => {
      if (!ready(run.snapshot())) return
      unsubscribe()
      resolve()
    })
  })
}

const request = { headers: { 'X-Mortar-Session': 's1' }, body: { model: 'm', messages: [{ role: 'user', content: 'Hi' }] } }

describe('ExchangeRun', () => {
  it('records the request as sent, to the chat endpoint, before anything is answered', () => {
    const { fake } = client(untilAborted)
    const run = new ExchangeRun(fake, request)
    const { exchange, outcome, requestId } = run.snapshot()
    expect(exchange.request).toEqual({ ...request, url: `${URL_BASE}/v1/chat/completions` })
    expect(exchange.response).toBeNull()
    expect(outcome).toEqual({ kind: 'sending' })
    expect(requestId).toBeNull()
    expect(new ExchangeRun(fake, request).id).not.toBe(run.id)
  })

  it('records a stream frame by frame, however it is split, and assembles the reply', async () => {
    const stream = openStream()
    const { fake, calls } = client(async () => sse(stream.body))
    const run = new ExchangeRun(fake, request)
    let told = 0
    run.subscribe(() => told++)
    const sent = run.send()
    const text = frame(chunk({ role: 'assistant', content: 'Hel' })) + frame(chunk({ content: 'lo' })) + frame(chunk({}, 'stop')) + frame('[DONE]')
    stream.write(text.slice(0, 7))
    stream.write(text.slice(7, 60))
    stream.write(text.slice(60))
    stream.close()
    await sent
    expect(calls.posted).toEqual([{ body: request.body, headers: request.headers }])
    const snapshot = run.snapshot()
    expect(snapshot.requestId).toBe('chatcmpl-7')
    expect(snapshot.exchange.response).toMatchObject({ status: 200 })
    expect(snapshot.frames.map((f) => f.kind)).toEqual(['chunk', 'chunk', 'chunk', 'done'])
    expect(snapshot.frames.map((f) => f.raw).join('')).toBe(text)
    expect(snapshot.frameCount).toBe(4)
    expect(snapshot.reply).toMatchObject({ content: 'Hello', role: 'assistant', finishReason: 'stop', sawDone: true })
    expect(snapshot.outcome).toEqual({ kind: 'finished', finishReason: 'stop' })
    expect(snapshot.exchange.end).toMatchObject({ reason: 'eof' })
    expect(told).toBeGreaterThanOrEqual(2)
  })

  it('records a stream that breaks as a network error, keeping what came', async () => {
    const stream = openStream()
    const run = new ExchangeRun(client(async () => sse(stream.body)).fake, request)
    const sent = run.send()
    stream.write(frame(chunk({ content: 'Hal' })))
    await until(run, (snapshot) => snapshot.frameCount === 1)
    stream.fail(new Error('connection reset'))
    await sent
    const snapshot = run.snapshot()
    expect(snapshot.reply.content).toBe('Hal')
    expect(snapshot.exchange.end).toMatchObject({ reason: 'network_error', message: 'connection reset' })
    // Cut without [DONE] or an error event: the stream is incomplete.
    expect(snapshot.outcome).toEqual({ kind: 'incomplete' })
  })

  it('keeps the bytes of a frame cut off by the end of the stream', async () => {
    const stream = openStream()
    const run = new ExchangeRun(client(async () => sse(stream.body)).fake, request)
    const sent = run.send()
    const text = frame(chunk({ content: 'Hi' })) + 'data: {"choi'
    stream.write(text)
    stream.close()
    await sent
    expect(run.snapshot().frames.map((f) => f.raw).join('')).toBe(text)
    expect(run.snapshot().frames.at(-1)?.kind).toBe('partial')
  })

  it('reads a JSON reply whole', async () => {
    const completion: ChatCompletion = {
      id: 'chatcmpl-8',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'Hello' }, logprobs: null, finish_reason: 'length' }],
      usage: { prompt_tokens: 1, completion_tokens: 1, total_tokens: 2 },
    }
    const body = JSON.stringify(completion)
    const run = new ExchangeRun(client(async () => new Response(body, { headers: { 'content-type': 'application/json', [MortarHeader.requestId]: 'chatcmpl-8' } })).fake, request)
    await run.send()
    const snapshot = run.snapshot()
    expect(snapshot.exchange.bodyText).toBe(body)
    expect(snapshot.frames).toEqual([])
    expect(snapshot.reply).toMatchObject({ id: 'chatcmpl-8', content: 'Hello', finishReason: 'length' })
    expect(snapshot.outcome).toEqual({ kind: 'finished', finishReason: 'length' })
  })

  it('reads an error answer as an HTTP error with the envelope', async () => {
    const envelope = { error: { message: 'The model `x` does not exist.', type: 'invalid_request_error', param: 'model', code: 'model_not_found' } }
    const run = new ExchangeRun(client(async () => new Response(JSON.stringify(envelope), { status: 404, headers: { 'content-type': 'application/json' } })).fake, request)
    await run.send()
    expect(run.snapshot().outcome).toEqual({ kind: 'http_error', status: 404, code: 'model_not_found', message: envelope.error.message })
  })

  it('records a request that never reached the gateway as a network error', async () => {
    const run = new ExchangeRun(client(() => Promise.reject(new TypeError('fetch failed'))).fake, request)
    await run.send()
    expect(run.snapshot().outcome).toEqual({ kind: 'network_error', message: 'fetch failed' })
  })

  it('hangs up when stopped before the headers are in: no ID to stop yet', async () => {
    const { fake, calls } = client(untilAborted)
    const run = new ExchangeRun(fake, request)
    const sent = run.send()
    await run.stop()
    await sent
    expect(calls.signal?.aborted).toBe(true)
    expect(calls.stopped).toEqual([])
    expect(run.snapshot().exchange.stopRequested).toBe(false)
    expect(run.snapshot().outcome).toEqual({ kind: 'client_disconnected' })
  })

  it('asks the gateway to stop its generation by the ID in the headers, and records the answer', async () => {
    const stream = openStream()
    const { fake, calls } = client(
      async () => sse(stream.body, 'chatcmpl-9'),
      async () => ({ status: 200, body: { id: 'chatcmpl-9', object: 'chat.completion.stop', stopped: true } as never }),
    )
    const run = new ExchangeRun(fake, request)
    const sent = run.send()
    await until(run, (snapshot) => snapshot.requestId !== null)
    await run.stop()
    expect(calls.stopped).toEqual(['chatcmpl-9'])
    expect(run.snapshot().exchange.stopRequested).toBe(true)
    expect(run.snapshot().stop).toMatchObject({ kind: 'answered', status: 200 })
    stream.close()
    await sent
  })

  it('records a stop request that failed', async () => {
    const stream = openStream()
    const { fake } = client(async () => sse(stream.body), () => Promise.reject(new Error('HTTP 500')))
    const run = new ExchangeRun(fake, request)
    const sent = run.send()
    await until(run, (snapshot) => snapshot.requestId !== null)
    await run.stop()
    expect(run.snapshot().stop).toEqual({ kind: 'failed', message: 'HTTP 500' })
    stream.close()
    await sent
  })

  it('records its own hang-up mid-stream as a client disconnect', async () => {
    const stream = openStream()
    const { fake } = client(async (signal) => {
      signal.addEventListener('abort', () => stream.fail(new DOMException('The operation was aborted.', 'AbortError')))
      return sse(stream.body)
    })
    const run = new ExchangeRun(fake, request)
    const sent = run.send()
    await until(run, (snapshot) => snapshot.requestId !== null)
    run.disconnect()
    await sent
    expect(run.snapshot().exchange.end).toMatchObject({ reason: 'client_aborted' })
  })
})
