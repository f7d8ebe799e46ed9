// The floor: the least a Node gateway can add. A node:http server that forwards every request to
// the model server as it is (method, path, headers but the hop-by-hop ones) on kept-alive
// connections, and streams both bodies through with pipe(): no parsing, no buffering, no Nagle.
//
// Usage: node --import tsx bare-proxy.ts --upstream http://127.0.0.1:PORT [--port 0]
// Prints one JSON line {"ready":true,"port":N} on stdout once it listens. pair.ts runs it in one
// process with the fake model server instead (startBareProxy).
import { Agent, createServer, request, type IncomingHttpHeaders, type OutgoingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host'])

function forwardHeaders(raw: IncomingHttpHeaders): OutgoingHttpHeaders {
  const headers: OutgoingHttpHeaders = {}
  for (const [name, value] of Object.entries(raw)) if (!HOP_BY_HOP.has(name)) headers[name] = value
  return headers
}

/** The bare proxy to `upstreamUrl` (loopback only), listening on 127.0.0.1: resolves once it listens. */
export function startBareProxy(upstreamUrl: string, { port = 0 }: { port?: number } = {}): Promise<Server> {
  const upstream = new URL(upstreamUrl)
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(upstream.hostname)) throw new Error('bare-proxy forwards to loopback only')
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' })
  const server = createServer({ keepAliveTimeout: 60_000, noDelay: true }, (req, res) => {
    const out = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: forwardHeaders(req.headers),
        agent,
      },
      (up) => {
        res.writeHead(up.statusCode ?? 502, forwardHeaders(up.headers))
        up.pipe(res)
      },
    )
    out.on('socket', (socket) => socket.setNoDelay(true))
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: 'upstream unreachable', type: 'upstream_error' } }))
    })
    // A client that leaves hangs up on the model server too.
    res.on('close', () => {
      if (!res.writableFinished) out.destroy()
    })
    req.pipe(out)
  })
  server.headersTimeout = 0
  server.requestTimeout = 0
  return new Promise((resolve) => server.listen({ port, host: '127.0.0.1', backlog: 4096 }, () => resolve(server)))
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, upstream: { type: 'string' } } })
  if (values.upstream === undefined) throw new Error('bare-proxy needs --upstream')
  const server = await startBareProxy(values.upstream, { port: Number(values.port) })
  process.stdout.write(JSON.stringify({ ready: true, port: (server.address() as AddressInfo).port }) + '\n')
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
}
