import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { isRecord } from '../../shared/narrow'
import { loopbackHost, loopbackUrl, LOOPBACK } from '../loopback'
import { defaultFakeBehavior, type FakeBehavior, type RecordedRequest } from './behavior'
import { Pacer, type PacerLateness } from './pacer'
import { sendJson, type Exchange } from './reply'
import { isGenerationRequest, respond } from './respond'
import type { RawAnswer } from './server-families'

export interface FakeServerOptions {
  /** default 0: any free port */
  port?: number
  /**
   * Keep every request (`requests`, `otherRequests`, `nextRequest`). A long benchmark turns it off,
   * or the records would be what grows.
   */
  record?: boolean
  /** the listen backlog: a benchmark's bursts of new connections must not be dropped here */
  backlog?: number
  /** how long an idle kept-alive connection stays open (Node's default when unset) */
  keepAliveTimeoutMs?: number
  /**
   * Answers this server gives before any model-server behavior (a benchmark's readiness and
   * statistics endpoints); undefined: not one of them.
   */
  answer?: (method: string, pathname: string, query: URLSearchParams) => RawAnswer | undefined
}

export interface FakeModelServer {
  /** base URL including /v1, e.g. http://127.0.0.1:34567/v1 */
  url: string
  port: number
  /** `127.0.0.1:port`: the name the gateway gives it as a replica. */
  host: string
  /** mutable: tests assign fields between requests (each request uses a snapshot taken on arrival) */
  behavior: FakeBehavior
  /** Generation requests (chat completions; Responses or completions when it offers them), in arrival order (what nextRequest and requestAt wait for). */
  requests: RecordedRequest[]
  /** Every other request (the gateway asking about the model: /v1/models, /props, /api/show…). */
  otherRequests: RecordedRequest[]
  /**
   * Resolves with the oldest request not yet taken by an earlier call, or else the next one to
   * arrive. A request counts as arrived once its body has been read (so `body` is set).
   */
  nextRequest(): Promise<RecordedRequest>
  /** Resolves with the request at this index of `requests` (arrival order) once it has arrived. */
  requestAt(index: number): Promise<RecordedRequest>
  /** how late this server wrote paced pieces, since it started or the last reset */
  lateness(): PacerLateness
  resetLateness(): void
  /** stop listening and destroy every open socket at once (simulates the process dying) */
  kill(): Promise<void>
  /** listen again on the same port after kill() */
  restart(): Promise<void>
  close(): Promise<void>
}

/**
 * A fake OpenAI-compatible model server (the upstream a forwarding gateway talks to), for tests,
 * the benchmark and the soak. It answers `POST /v1/chat/completions` in the shapes of the server
 * family it is told to be (JSON, or SSE when `stream: true`), its informational endpoints, a 404
 * as that server writes it elsewhere; it can misbehave in every way the gateway must handle (see
 * FakeMode), and records every request it received and whether the caller hung up before it was
 * done. Plain Node (no test framework), so a benchmark process can run it too (`cli.ts`).
 *
 * Listens on 127.0.0.1. Every response carries `x-fake-server: <behavior.name>`.
 */
export async function startFakeModelServer(initial: Partial<FakeBehavior> = {}, options: FakeServerOptions = {}): Promise<FakeModelServer> {
  const record = options.record ?? true
  const requests: RecordedRequest[] = []
  const untaken: RecordedRequest[] = []
  const waiters: Array<{ resolve: (r: RecordedRequest) => void; reject: (e: Error) => void }> = []
  const indexWaiters = new Map<number, Array<(r: RecordedRequest) => void>>()
  const sockets = new Set<Socket>()
  const live = new Set<Exchange>()
  const pacer = new Pacer()
  let server: Server | null = null
  let port = options.port ?? 0
  let closedForGood = false

  const fake: FakeModelServer = {
    url: '',
    port: 0,
    host: '',
    behavior: { ...defaultFakeBehavior(), ...initial },
    requests,
    otherRequests: [],
    nextRequest() {
      const ready = untaken.shift()
      if (ready !== undefined) return Promise.resolve(ready)
      if (closedForGood) return Promise.reject(new Error('fake model server is closed'))
      return new Promise((resolve, reject) => waiters.push({ resolve, reject }))
    },
    requestAt(index) {
      const arrivedAlready = requests[index]
      if (arrivedAlready !== undefined) return Promise.resolve(arrivedAlready)
      return new Promise((resolve) => indexWaiters.set(index, [...(indexWaiters.get(index) ?? []), resolve]))
    },
    lateness: () => pacer.latenessStats(),
    resetLateness: () => pacer.resetLateness(),
    kill: () => stop(),
    async restart() {
      if (closedForGood) throw new Error('fake model server is closed')
      if (server === null) await listen(port)
    },
    async close() {
      closedForGood = true
      await stop()
      for (const waiter of waiters.splice(0)) waiter.reject(new Error('fake model server closed'))
    },
  }

  const arrived = (request: RecordedRequest): void => {
    requests.push(request)
    for (const resolve of indexWaiters.get(requests.length - 1) ?? []) resolve(request)
    indexWaiters.delete(requests.length - 1)
    const waiter = waiters.shift()
    if (waiter !== undefined) waiter.resolve(request)
    else untaken.push(request)
  }

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const method = req.method ?? ''
    const target = req.url ?? ''
    if (options.answer !== undefined) {
      const url = new URL(target, 'http://fake')
      const answer = options.answer(method, url.pathname, url.searchParams)
      if (answer !== undefined) {
        req.resume()
        res.writeHead(answer.status, { 'content-type': answer.contentType, 'content-length': Buffer.byteLength(answer.body) })
        res.end(answer.body)
        return
      }
    }
    let resolveEnded!: () => void
    const request: RecordedRequest = {
      method,
      path: target,
      headers: req.headers,
      body: undefined,
      hungUp: false,
      ended: new Promise<void>((resolve) => (resolveEnded = resolve)),
      chunksSent: 0,
    }
    const exchange: Exchange = { record: request, res, behavior: { ...fake.behavior }, pacer, closed: false, closedByServer: false, onClose: new Set() }
    live.add(exchange)
    res.on('close', () => {
      exchange.closed = true
      live.delete(exchange)
      if (!res.writableFinished && !exchange.closedByServer) request.hungUp = true
      for (const callback of exchange.onClose) callback()
      exchange.onClose.clear()
      resolveEnded()
    })
    void readBody(req)
      .then((body) => {
        request.body = body
        if (record) {
          if (isGenerationRequest(method, target.split('?')[0] ?? '', exchange.behavior)) arrived(request)
          else fake.otherRequests.push(request)
        }
        if (!exchange.closed) return respond(exchange)
      })
      .catch((error: unknown) => {
        // A bug in this fake: make it loud in the test that hits it, not a hang.
        if (!exchange.closed) sendJson(exchange, 500, { error: { message: `fake model server failed: ${String(error)}`, type: 'server_error', param: null, code: null } })
      })
  }

  const listen = (onPort: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const s = createServer(
        { noDelay: true, headersTimeout: 0, requestTimeout: 0, ...(options.keepAliveTimeoutMs !== undefined ? { keepAliveTimeout: options.keepAliveTimeoutMs } : {}) },
        handle,
      )
      s.on('connection', (socket) => {
        sockets.add(socket)
        socket.on('close', () => sockets.delete(socket))
      })
      s.once('error', reject)
      s.listen({ port: onPort, host: LOOPBACK, backlog: options.backlog ?? 511 }, () => {
        s.off('error', reject)
        server = s
        const address = s.address()
        port = typeof address === 'object' && address !== null ? address.port : onPort
        fake.port = port
        fake.host = loopbackHost(port)
        fake.url = loopbackUrl(port, '/v1')
        resolve()
      })
    })

  const stop = async (): Promise<void> => {
    const s = server
    if (s === null) return
    server = null
    for (const exchange of live) exchange.closedByServer = true
    const closed = new Promise<void>((resolve) => s.close(() => resolve()))
    s.closeAllConnections()
    for (const socket of sockets) socket.destroy()
    await closed
  }

  await listen(port)
  return fake
}

async function readBody(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const parts: Buffer[] = []
  try {
    for await (const part of req) parts.push(Buffer.isBuffer(part) ? part : Buffer.from(String(part)))
  } catch {
    return undefined // the caller hung up while sending
  }
  if (parts.length === 0) return undefined
  try {
    const parsed: unknown = JSON.parse(Buffer.concat(parts).toString('utf8'))
    return isRecord(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

