import { createServer, IncomingMessage, ServerResponse } from 'node:http'
import { Socket, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ExchangeRecorder, recorderOf, type GenerationFacts, type RecorderHooks } from './exchange-recorder'
import { buildStoredExchange } from './build-exchange'
import { ByteChunks } from '../http/json-chunks'

const servers: Array<ReturnType<typeof createServer>> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => {
    server.close(resolve)
    server.closeAllConnections()
  })))
})

/** Hooks that only hear of the end: what each test watches. */
const endedOnly = (ended: RecorderHooks['ended']): RecorderHooks => ({
  maxExchangeBytes: () => 1 << 20,
  started: () => undefined,
  changed: () => undefined,
  ended,
})

describe('ExchangeRecorder', () => {
  it('is found by its request while the exchange runs and while it ends, and leaves the recorders once it has ended', async () => {
    let request: IncomingMessage | undefined
    const seen: { running?: ExchangeRecorder | undefined; ending?: ExchangeRecorder | undefined; after?: ExchangeRecorder | null } = {}
    const afterEnd = new Promise<void>((resolve) => {
      const hooks = endedOnly((recorder) => {
        seen.ending = recorderOf(recorder.req)
        queueMicrotask(() => {
          seen.after = recorderOf(recorder.req) ?? null
          resolve()
        })
      })
      const server = createServer((req, res) => {
        request = req
        new ExchangeRecorder(req, res, hooks)
        seen.running = recorderOf(req)
        res.end('ok')
      })
      servers.push(server)
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo
        void fetch(`http://127.0.0.1:${port}/`).then((response) => response.text())
      })
    })
    await afterEnd
    expect(request).toBeDefined()
    expect(seen.running).toBeInstanceOf(ExchangeRecorder)
    expect(seen.ending).toBe(seen.running)
    expect(seen.after).toBeNull()
  })

  // A route whose client left while the prompt was still being counted for a usage estimate.
  it.each([
    { how: 'the generation ends', facts: { record: undefined, error: null } },
    { how: 'the route ends without a generation', facts: undefined },
  ])('builds the record of a client that left after a generation was decided once $how', async ({ facts }) => {
    const ended: unknown[] = []
    let recorder: ExchangeRecorder | undefined
    const closed = new Promise<void>((whenClosed) => {
      const hooks = endedOnly((done) => ended.push(done.generationFacts()))
      const server = createServer((req, res) => {
        recorder = new ExchangeRecorder(req, res, hooks)
        recorder.decided({ model: 'm', deployment: 'scripted', session: 's', stream: true }, undefined)
        res.writeHead(200)
        res.write('data: first\n\n')
        res.once('close', () => whenClosed())
      })
      servers.push(server)
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo
        const controller = new AbortController()
        void fetch(`http://127.0.0.1:${port}/`, { signal: controller.signal }).then(async (response) => {
          await response.body?.getReader().read()
          controller.abort()
        })
      })
    })
    await closed
    expect(ended).toEqual([])
    if (facts === undefined) recorder?.routeEnded()
    // Only `error` is read here; a real generation's facts carry its completion record.
    else recorder?.generationEnded(facts as unknown as GenerationFacts)
    expect(ended).toEqual([facts])
    // The route's own end, after the facts, does not end the record twice.
    recorder?.routeEnded()
    expect(ended).toHaveLength(1)
  })

  it('keeps a body the reader decoded as its bytes when they are ASCII (the text made once), as its text when not', () => {
    const recorderFor = () => {
      const req = new IncomingMessage(new Socket())
      Object.assign(req, { method: 'POST', url: '/v1/chat/completions', rawHeaders: ['Authorization', 'Bearer ' + 'k'.repeat(40)], headers: { authorization: 'Bearer ' + 'k'.repeat(40) } })
      return new ExchangeRecorder(req, new ServerResponse(req), endedOnly(() => undefined))
    }
    const text = JSON.stringify({ messages: [{ role: 'user', content: 'Say hello. '.repeat(30) }] })
    const raw = Buffer.from(text)
    const ascii = recorderFor()
    ascii.bodyDecoded(text, raw, true)
    expect(ascii).toMatchObject({ requestBody: raw, requestAscii: true, requestBytes: raw.length })
    // The reader's text, not a second decoding of the bytes.
    expect(ascii.requestText()).toBe(text)
    const wide = recorderFor()
    const wideText = text.replace('hello', 'héllo')
    wide.bodyDecoded(wideText, Buffer.from(wideText), false)
    expect(wide).toMatchObject({ requestBody: wideText, requestAscii: false, requestBytes: Buffer.byteLength(wideText) })

    // A body sent spliced from the ASCII bytes: left out of the record (kept by its bytes) only when
    // the gateway's own pieces are ASCII too.
    for (const own of ['{"model":"m","messages":', '{"model":"mé","messages":']) {
      const recorder = recorderFor()
      recorder.bodyDecoded(text, raw, true)
      const pieces = [Buffer.from(own), raw.subarray(text.indexOf('['), text.lastIndexOf(']') + 1), Buffer.from('}')]
      recorder.sent('replica-1', () => pieces.map((piece) => piece.toString('utf8')).join(''), new ByteChunks(pieces))
      const { exchange, known } = buildStoredExchange(recorder, 1 << 20)
      const sent = pieces.map((piece) => piece.toString('utf8')).join('')
      expect(exchange.request.body).toBe('')
      expect(known.requestBody).toBe(raw)
      expect(exchange.upstream?.body).toBe(own.includes('é') ? sent : '')
    }
  })

  it('lets go of the bodies, frames and model server leg it was built from once it has handed its record over', async () => {
    const body = Buffer.from('{"messages":[{"role":"user","content":"hi"}]}')
    const atEnd: { text?: string; frames?: number; sent?: string | undefined } = {}
    let recorder: ExchangeRecorder | undefined
    const handedOver = new Promise<void>((resolve) => {
      const hooks = endedOnly((done) => {
        atEnd.text = done.requestText()
        atEnd.frames = done.frames.length
        atEnd.sent = done.sentBody()
        queueMicrotask(resolve)
      })
      const server = createServer((req, res) => {
        recorder = new ExchangeRecorder(req, res, hooks)
        recorder.bodyUndecoded(body)
        recorder.sent('replica-1', () => '{"model":"m"}')
        recorder.received(Buffer.from('data: {}\n\n'))
        recorder.receivedBody('{"ok":true}')
        res.write('data: first\n\n')
        res.end('data: [DONE]\n\n')
      })
      servers.push(server)
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo
        void fetch(`http://127.0.0.1:${port}/`, { method: 'POST', body }).then((response) => response.text())
      })
    })
    await handedOver
    expect(atEnd).toEqual({ text: body.toString(), frames: 2, sent: '{"model":"m"}' })
    expect(recorder?.requestBody).toBeUndefined()
    expect(recorder?.requestText()).toBe('')
    expect(recorder?.upstream).toBeUndefined()
    expect(recorder?.sentBody()).toBeUndefined()
    expect(recorder?.frames.length).toBe(0)
    expect(recorder?.endedAt).not.toBeNull()
  })
})
