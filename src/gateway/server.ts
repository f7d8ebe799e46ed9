import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { KeyStore } from './auth/key-store'
import type { ServeOverrides } from './config/build-catalog'
import { CatalogSource } from './config/catalog-source'
import type { OptimizerMode } from './config/model-catalog'
import { createGateway, type Gateway, type GatewayConfig } from './create-gateway'

export const DEFAULT_PORT = 7313
export const DEFAULT_HOST = '127.0.0.1'
const SHUTDOWN_GRACE_MS = 3_000

export interface GatewayServerOptions {
  host: string
  /** 0 picks a free port; `url` tells which. */
  port: number
  /** Where config and keys live. */
  home: string
  rendererDir?: string
  /** Pace of the scripted model; 0 is as fast as possible. */
  scriptedTokensPerSecond?: number
  /** `--upstream …`: serve the default model from these model servers. */
  upstream?: ServeOverrides['upstream']
  allowedHosts?: readonly string[]
  /** `--optimizer`: the prompt optimizer's mode for deployments that don't set one. */
  optimizerMode?: OptimizerMode
  /** Test-only: a shorter `: ping` interval than the reference's 10 s. */
  pingIntervalMs?: number
  onCompletion?: GatewayConfig['onCompletion']
}

export interface GatewayServer {
  url: string
  port: number
  gateway: Gateway
  keys: KeyStore
  catalog: CatalogSource
  /** Stop live generations (their streams end cleanly), stop listening, and resolve when closed. */
  close(): Promise<void>
}

/** The gateway on a real socket: what `mortar serve` and the desktop app both run. */
export async function startGatewayServer(options: GatewayServerOptions): Promise<GatewayServer> {
  const keys = new KeyStore(join(options.home, 'keys.json'))
  const catalog = new CatalogSource(options.home, {
    scriptedTokensPerSecond: options.scriptedTokensPerSecond ?? 0,
    ...(options.optimizerMode !== undefined ? { optimizerMode: options.optimizerMode } : {}),
    ...(options.upstream !== undefined ? { upstream: options.upstream } : {}),
  })
  const gateway = createGateway({
    keys,
    catalog: () => catalog.current(),
    organizations: () => catalog.organizations(),
    ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}),
    ...(options.onCompletion !== undefined ? { onCompletion: options.onCompletion } : {}),
    ...(options.rendererDir !== undefined ? { rendererDir: options.rendererDir } : {}),
    ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
  })
  const server = createServer(gateway.app)
  await listen(server, options.port, options.host)
  const port = (server.address() as AddressInfo).port
  const hostInUrl = options.host.includes(':') ? `[${options.host}]` : options.host
  let closing: Promise<void> | undefined
  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    gateway,
    keys,
    catalog,
    close: () => (closing ??= closeServer(server, gateway)),
  }
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve()
    })
  })
}

async function closeServer(server: Server, gateway: Gateway): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()))
  // Stopped streams end with [DONE] at once, unless a client stopped reading and its socket is
  // full: after a grace period every connection is cut, which also releases those generations.
  const cutConnections = setTimeout(() => server.closeAllConnections(), SHUTDOWN_GRACE_MS)
  cutConnections.unref()
  await gateway.drain()
  server.closeIdleConnections()
  await closed
  clearTimeout(cutConnections)
}
