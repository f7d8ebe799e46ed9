import { createServer, type Server } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { StopController } from '../../generation/stop-signal'
import { POOLED_IDLE_MS, postToReplica } from './upstream-http'
import { ReplicaPool } from './replica-pool'

// A model server closes a kept-alive connection when it has been idle for its keep-alive timeout
// (Node's and uvicorn's: 5 s). A request sent on such a connection at that moment — or while the
// gateway's event loop is too busy to have read the server's FIN — is reset before any answer.
// The soak lost streams this way under load: the one retry went to another pooled connection
// that was just as stale. These tests use a server that refuses every request after the first
// on a connection, so every pooled connection is stale, deterministically.

let server: Server | undefined
afterEach(async () => {
  server?.closeAllConnections()
  await new Promise((resolve) => server?.close(resolve))
  server = undefined
})

/** Answers the first request of each connection; any later one on the same connection is reset. */
async function firstRequestOnlyServer(): Promise<{ url: string; connections: () => number }> {
  const served = new WeakSet<Socket>()
  let connections = 0
  server = createServer((req, res) => {
    if (served.has(req.socket)) return void req.socket.destroy()
    served.add(req.socket)
    req.resume()
    req.on('end', () => res.end('{"ok":true}'))
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, connections: () => connections }
}

function replicaOf(url: string) {
  return new ReplicaPool([{ id: 'stale', baseUrl: new URL(url), apiKey: undefined, model: undefined, timeoutMs: 5_000, idleTimeoutMs: 5_000 }], 1_000).replicas[0]!
}

async function post(replica: ReturnType<typeof replicaOf>): Promise<number> {
  const res = await postToReplica(replica, '/chat/completions', Buffer.from('{}'), {}, new StopController())
  res.resume()
  await new Promise((resolve) => res.on('end', resolve))
  return res.statusCode ?? 0
}

describe('a kept-alive connection the model server has closed', () => {
  it('is retried on a new connection, not on another pooled one that may be as stale', async () => {
    const { url, connections } = await firstRequestOnlyServer()
    const replica = replicaOf(url)
    // Three connections in the pool, each already used once: all stale for this server.
    expect(await Promise.all([post(replica), post(replica), post(replica)])).toEqual([200, 200, 200])
    const pooled = connections()
    // The first attempt goes out on a pooled connection and is reset; the retry must not be.
    expect(await post(replica)).toBe(200)
    expect(connections()).toBe(pooled + 1)
  })

  it('a burst smaller than the pool of stale connections: every request gets its answer', async () => {
    const { url } = await firstRequestOnlyServer()
    const replica = replicaOf(url)
    const burst = (size: number) => Promise.all(Array.from({ length: size }, () => post(replica)))
    expect(await burst(8)).toEqual(Array(8).fill(200))
    expect(await burst(4)).toEqual(Array(4).fill(200))
  })
})

describe('a pooled connection left idle', () => {
  it(`is closed by the gateway after ${POOLED_IDLE_MS} ms, before a server's 5 s keep-alive timeout would`, async () => {
    server = createServer((req, res) => {
      req.resume()
      req.on('end', () => res.end('{"ok":true}'))
    })
    // This server would keep the connection for a minute: whoever closes it sooner is the gateway.
    server.keepAliveTimeout = 60_000
    const closed = new Promise<void>((resolve) => server?.on('connection', (socket: Socket) => socket.on('close', () => resolve())))
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve))
    const replica = replicaOf(`http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`)
    expect(await post(replica)).toBe(200)
    await closed
  })
})
