import type { Server as HttpServer } from 'node:http'
import type { AddressInfo, Server as TcpServer } from 'node:net'
import { afterEach } from 'vitest'
import { ReplicaPool } from './replica-pool'

// Real servers on 127.0.0.1 port 0 for the HTTP/1.1 client's tests, closed after each test.

const servers: Array<HttpServer | TcpServer> = []
afterEach(async () => {
  for (const server of servers.splice(0)) {
    if ('closeAllConnections' in server) server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

/** Listen on a free loopback port; the server's `/v1` base URL. */
export async function listen<S extends HttpServer | TcpServer>(server: S): Promise<string> {
  servers.push(server)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
}

/** Stop listening before the test ends (a port nothing answers on). */
export async function closeLast(): Promise<void> {
  const server = servers.pop()
  await new Promise((resolve) => server?.close(resolve))
}

/** One replica at `url`, with the given key and timeouts. */
export function replicaAt(url: string, { apiKey, timeoutMs = 5_000, idleTimeoutMs = 5_000 }: { apiKey?: string; timeoutMs?: number; idleTimeoutMs?: number } = {}) {
  return new ReplicaPool([{ id: 'r', baseUrl: new URL(url), apiKey, model: undefined, timeoutMs, idleTimeoutMs }], 1_000).replicas[0]!
}
