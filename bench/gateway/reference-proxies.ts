// Two reference gateways for the JSON c=1 measure, each in its own process as Mortar is: what a
// process of its own costs before any gateway work, and what Node's HTTP client costs of that.
//
// - `buffered`: a node:http server that reads the whole body, forwards it with node:http's client
//   on a kept-alive agent, reads the whole reply and answers it (Mortar's shape, with no work).
// - `raw-client`: the same server, the model server's leg on kept-alive sockets written and read
//   by hand (one write of head and body; the reply's head read until its blank line, then
//   Content-Length bytes). Only what the fake model server's JSON replies need: no chunked replies,
//   no streams. A measuring stick, not a client to ship.
// - `undici`: the same server, the model server's leg by undici's Pool (keep-alive, pipelining 1):
//   whether a well-kept client library would do what Node's client does for less (at c=1 it did not).
//
// Usage: node --import tsx reference-proxies.ts --kind buffered|raw-client|undici --upstream http://127.0.0.1:PORT [--port 0]
// Serves GET /health; prints one JSON line {"ready":true,"port":N} once it listens.
import { Agent, createServer, request, type IncomingMessage } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'

type Forward = (path: string, body: Buffer, answer: (status: number, reply: Buffer) => void) => void

function readAll(stream: IncomingMessage, done: (bytes: Buffer) => void): void {
  const chunks: Buffer[] = []
  stream.on('data', (chunk: Buffer) => chunks.push(chunk))
  stream.on('end', () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)))
}

function nodeClient(upstream: URL): Forward {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' })
  return (path, body, answer) => {
    const out = request({ host: upstream.hostname, port: upstream.port, method: 'POST', path, agent, headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) =>
      readAll(res, (reply) => answer(res.statusCode ?? 502, reply)),
    )
    out.on('error', () => answer(502, Buffer.from('{"error":{"message":"upstream unreachable"}}')))
    out.end(body)
  }
}

function undiciClient(upstream: URL): Forward {
  const pool = new Pool(upstream.origin, { keepAliveTimeout: 4_000, pipelining: 1 })
  return (path, body, answer) => {
    pool.request({ method: 'POST', path, body, headers: { 'content-type': 'application/json' } }).then(
      async (res) => answer(res.statusCode, Buffer.from(await res.body.arrayBuffer())),
      () => answer(502, Buffer.from('{"error":{"message":"upstream unreachable"}}')),
    )
  }
}

const HEAD_END = Buffer.from('\r\n\r\n')

function rawClient(upstream: URL): Forward {
  const idle = new Set<Socket>()
  const hostHeader = `${upstream.hostname}:${upstream.port}`
  const open = (): Socket => {
    const socket = connect({ host: upstream.hostname, port: Number(upstream.port), noDelay: true })
    // A kept socket the server closes or resets leaves the pool; the request on it, if any, answers 502.
    socket.on('error', () => socket.destroy())
    socket.on('close', () => idle.delete(socket))
    return socket
  }
  const take = (): Socket => {
    const [socket] = idle
    if (socket === undefined) return open()
    idle.delete(socket)
    return socket
  }
  return (path, body, answer) => {
    const socket = take()
    let received: Buffer = Buffer.alloc(0)
    let bodyStart = -1
    let length = -1
    let status = 502
    const done = (code: number, reply: Buffer, reuse: boolean) => {
      socket.off('data', onData)
      socket.off('close', onClose)
      if (reuse) idle.add(socket)
      else socket.destroy()
      answer(code, reply)
    }
    const onData = (chunk: Buffer) => {
      received = received.length === 0 ? chunk : Buffer.concat([received, chunk])
      if (bodyStart === -1) {
        const end = received.indexOf(HEAD_END)
        if (end === -1) return
        const head = received.toString('latin1', 0, end)
        status = Number(head.slice(9, 12))
        length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? -1)
        bodyStart = end + HEAD_END.length
        if (length === -1) return done(502, Buffer.from('{"error":{"message":"the reference client reads Content-Length replies only"}}'), false)
      }
      if (received.length - bodyStart < length) return
      done(status, received.subarray(bodyStart, bodyStart + length), true)
    }
    const onClose = () => done(502, Buffer.from('{"error":{"message":"the model server closed the connection"}}'), false)
    socket.on('data', onData)
    socket.on('close', onClose)
    socket.write(Buffer.concat([Buffer.from(`POST ${path} HTTP/1.1\r\nhost: ${hostHeader}\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`, 'latin1'), body]))
  }
}

const { values } = parseArgs({ options: { kind: { type: 'string' }, upstream: { type: 'string' }, port: { type: 'string', default: '0' } } })
if (values.upstream === undefined || !['buffered','raw-client','undici'].includes(values.kind ?? '')) throw new Error('reference-proxies needs --kind buffered|raw-client|undici and --upstream')
const upstream = new URL(values.upstream)
if (!['127.0.0.1', 'localhost', '[::1]'].includes(upstream.hostname)) throw new Error('reference-proxies forwards to loopback only')
const forward = values.kind === 'buffered' ? nodeClient(upstream) : values.kind === 'undici' ? undiciClient(upstream) : rawClient(upstream)
const server = createServer({ keepAliveTimeout: 60_000, noDelay: true }, (req, res) => {
  if (req.method === 'GET' && req.url === '/health') return void res.end('ok')
  readAll(req, (body) =>
    forward(req.url ?? '/', body, (status, reply) => {
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': reply.length })
      res.end(reply)
    }),
  )
})
server.listen({ port: Number(values.port), host: '127.0.0.1' }, () => {
  process.stdout.write(JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port }) + '\n')
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
