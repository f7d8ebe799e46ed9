import { createServer as createHttpServer, type IncomingMessage } from 'node:http'
import { createServer as createTcpServer, type Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { StopController } from '../../generation/stop-signal'
import { ByteChunks } from '../../http/json-chunks'
import { readStream } from '../../http/read-stream'
import { closeLast, listen, replicaAt } from './http1-test-servers'
import { postToReplica, readBody, UpstreamConnectError, type UpstreamReply } from './upstream-http'

// The gateway's own HTTP/1.1 client for plain-HTTP model servers, against real servers: Node's
// (what the fake model servers and many proxies are) and raw sockets writing the framings Node's
// server never writes (close-delimited bodies, interim replies, a reset mid-body).

function replicaOf(url: string, apiKey?: string) {
  return replicaAt(url, apiKey === undefined ? {} : { apiKey })
}

const post = (replica: ReturnType<typeof replicaOf>, body: Buffer | ByteChunks = Buffer.from('{}'), signal = new StopController<'client'>()) =>
  postToReplica(replica, '/chat/completions?x=1', body, { accept: 'application/json' }, signal)

const text = async (res: UpstreamReply) => (await readStream(res, 1 << 30)).bytes.toString('utf8')

/** A server that answers each connection's bytes with `reply(received)` written raw. */
async function rawServer(reply: (socket: Socket, received: string) => void): Promise<{ url: string; connections: () => number }> {
  let connections = 0
  const sockets = new Set<Socket>()
  const server = createTcpServer((socket) => {
    connections++
    // Closed with the server after each test: the client keeps an idle connection for seconds.
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let received = ''
    socket.on('data', (bytes) => {
      received += bytes.toString('latin1')
      if (!received.includes('\r\n\r\n{}')) return
      const request = received
      received = ''
      reply(socket, request)
    })
    socket.on('error', () => undefined)
  })
  const close = server.close.bind(server)
  server.close = (done) => {
    for (const socket of sockets) socket.destroy()
    return close(done)
  }
  return { url: await listen(server), connections: () => connections }
}

describe("the gateway's HTTP/1.1 client", () => {
  it('sends the head and body a model server expects, and reuses one connection for requests in turn', async () => {
    const seen: Array<{ req: IncomingMessage; body: string }> = []
    let connections = 0
    const server = createHttpServer((req, res) => {
      void readStream(req, 1 << 20).then(({ bytes }) => {
        seen.push({ req, body: bytes.toString() })
        res.setHeader('content-type', 'application/json')
        // One reply with a Content-Length, the next chunked: both framings, one connection.
        if (seen.length % 2 === 1) res.end(JSON.stringify({ n: seen.length }))
        else {
          res.write('{"n":')
          res.end(`${seen.length}}`)
        }
      })
    })
    server.on('connection', () => connections++)
    const replica = replicaOf(await listen(server), 'sk-upstream')
    const body = new ByteChunks([Buffer.from('{"a":'), Buffer.from('"é"}')])
    for (let n = 1; n <= 4; n++) {
      const res = await post(replica, body)
      expect(res.statusCode).toBe(200)
      expect(res.headers['content-type']).toBe('application/json')
      expect(JSON.parse(await text(res))).toEqual({ n })
    }
    expect(connections).toBe(1)
    const { req, body: received } = seen[0]!
    expect(received).toBe('{"a":"é"}')
    expect(req.method).toBe('POST')
    expect(req.url).toBe('/v1/chat/completions?x=1')
    expect(req.headers).toMatchObject({
      host: new URL(replica.baseUrl).host,
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"a":"é"}')),
      authorization: 'Bearer sk-upstream',
      accept: 'application/json',
    })
  })

  it('reads a whole reply that came in many pieces in full, also once a data listener is on', async () => {
    const pieces = Array.from({ length: 50 }, (_, i) => `"${i}",`)
    const { url } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n')
      for (const piece of ['[', ...pieces, '0]']) socket.write(`${piece.length.toString(16)}\r\n${piece}\r\n`)
      socket.write('0\r\n\r\n')
    })
    const replica = replicaOf(url)
    const res = await post(replica)
    // Turns of the event loop until the last piece is in (the reply is buffered, not read, meanwhile).
    while (!res.complete) await new Promise((resolve) => setImmediate(resolve))
    const pieceEvents: number[] = []
    res.on('data', (bytes: Buffer) => pieceEvents.push(bytes.length))
    const whole = await readBody(res, 1 << 20)
    expect(whole).toBe(['[', ...pieces, '0]'].join(''))
    expect(JSON.parse(whole)).toHaveLength(51)
    // Taken in one piece, which the data listener saw once.
    expect(pieceEvents).toEqual([Buffer.byteLength(whole)])
    // Past the limit, it is streamed to the limit instead, and the reply cut there.
    const again = await post(replica)
    while (!again.complete) await new Promise((resolve) => setImmediate(resolve))
    expect((await readBody(again, 10)).length).toBeLessThanOrEqual(10)
  })

  it('reads a large streamed reply whole while its reader falls behind, without losing or reordering bytes', async () => {
    const pieces = Array.from({ length: 200 }, (_, i) => `data: ${String(i).padStart(5, '0')}${'x'.repeat(4000)}\n\n`)
    const server = createHttpServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      for (const piece of pieces) res.write(piece)
      res.end()
    })
    const res = await post(replicaOf(await listen(server)))
    res.pause()
    // Let the server fill the socket and the reply's buffer before anything is read.
    await new Promise((resolve) => setImmediate(resolve))
    const seen: string[] = []
    res.on('data', (bytes: Buffer) => {
      seen.push(bytes.toString('latin1'))
      res.pause()
      setImmediate(() => res.resume())
    })
    res.resume()
    await new Promise((resolve) => res.on('end', resolve))
    expect(res.complete).toBe(true)
    expect(seen.join('')).toBe(pieces.join(''))
  })

  it("sends credentials written in the server's URL as Basic auth, unless a key is configured", async () => {
    const seen: Array<string | undefined> = []
    const server = createHttpServer((req, res) => {
      seen.push(req.headers.authorization)
      req.resume()
      req.on('end', () => res.end('{}'))
    })
    const url = new URL(await listen(server))
    url.username = 'proxy user'
    url.password = 'p@ss'
    await text(await post(replicaOf(url.href)))
    await text(await post(replicaOf(url.href, 'sk-upstream')))
    expect(seen).toEqual([`Basic ${Buffer.from('proxy user:p@ss').toString('base64')}`, 'Bearer sk-upstream'])
  })

  it("keeps a connection no longer than the server's Keep-Alive timeout says, less a second", async () => {
    let connections = 0
    const server = createHttpServer((req, res) => {
      req.resume()
      req.on('end', () => res.end('{}'))
    })
    server.on('connection', () => connections++)
    const replica = replicaOf(await listen(server))
    // Node's server says `Keep-Alive: timeout=1` for this: a connection it may close within a
    // second is not worth keeping.
    server.keepAliveTimeout = 1_000
    for (let n = 0; n < 3; n++) await text(await post(replica))
    expect(connections).toBe(3)
    // Five seconds: kept (the pool's own limit, 4 s, is the shorter).
    server.keepAliveTimeout = 5_000
    for (let n = 0; n < 3; n++) await text(await post(replica))
    expect(connections).toBe(4)
  })

  it('reads a body delimited by the close of the connection, and opens a new one for the next request', async () => {
    const { url, connections } = await rawServer((socket) => socket.end('HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{"closed":true}'))
    const replica = replicaOf(url)
    expect(await text(await post(replica))).toBe('{"closed":true}')
    expect(await text(await post(replica))).toBe('{"closed":true}')
    expect(connections()).toBe(2)
  })

  it('skips an interim 100 Continue and answers with the final reply', async () => {
    const { url } = await rawServer((socket) => socket.write('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndone'))
    const res = await post(replicaOf(url))
    expect(res.statusCode).toBe(200)
    expect(await text(res)).toBe('done')
  })

  it('reports a reply cut short as an error of the reply, with code ECONNRESET, and does not throw when nobody listens', async () => {
    const { url } = await rawServer((socket) => {
      socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc')
      setImmediate(() => socket.resetAndDestroy())
    })
    const replica = replicaOf(url)
    const res = await post(replica)
    await expect(readStream(res, 1 << 20)).rejects.toMatchObject({ code: 'ECONNRESET' })
    // The same again with no reader at all: the reply closes, and no 'error' goes unhandled.
    const unread = await post(replica)
    await new Promise((resolve) => unread.on('close', resolve))
    expect(unread.complete).toBe(false)
  })

  it('hangs up on the server when the reply is destroyed before its end', async () => {
    let closed!: () => void
    const serverSawClose = new Promise<void>((resolve) => (closed = resolve))
    const server = createHttpServer((req, res) => {
      req.resume()
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write('data: 1\n\n')
      res.on('close', () => closed())
    })
    const res = await post(replicaOf(await listen(server)))
    res.destroy()
    await serverSawClose
    expect(res.destroyed).toBe(true)
  })

  it('rejects as unreachable when nothing listens, and as aborted when the signal fires before the reply', async () => {
    const { url } = await rawServer(() => undefined) // takes the request and never answers
    const free = await listen(createTcpServer())
    const port = new URL(free).port
    await closeLast()
    await expect(post(replicaOf(`http://127.0.0.1:${port}/v1`))).rejects.toMatchObject({ kind: 'unreachable', message: 'ECONNREFUSED' })
    const stop = new StopController<'client'>()
    const pending = post(replicaOf(url), Buffer.from('{}'), stop)
    setImmediate(() => stop.abort('client'))
    await expect(pending).rejects.toBeInstanceOf(UpstreamConnectError)
    await expect(pending).rejects.toMatchObject({ kind: 'aborted' })
  })

  it('turns away a reply that is not HTTP as unreachable, naming what was wrong', async () => {
    const { url } = await rawServer((socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n\r\n'))
    await expect(post(replicaOf(url))).rejects.toMatchObject({ kind: 'unreachable', message: expect.stringMatching(/status line/) })
  })
})
