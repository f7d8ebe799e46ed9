import { createServer, type Server } from 'node:http'
import { join } from 'node:path'
import { KeyStore } from './auth/key-store'
import type { ServeOverrides } from './config/build-catalog'
import { CatalogSource } from './config/catalog-source'
import type { MortarConfig } from './config/config-file'
import type { OptimizerMode } from './config/model-catalog'
import { DEFAULT_CAPTURE_MODE, type CaptureLimits, type CaptureMode } from '../shared/api/traffic'
import { openCapture } from './capture/open-capture'
import { createGateway, type Gateway, type GatewayConfig } from './create-gateway'
import type { Dialect } from '../shared/api/dialect'
import { Cluster } from './cluster/cluster'
import { instanceName, parseRedisUrl } from './cluster/cluster-options'

export const DEFAULT_PORT = 7313
export const DEFAULT_HOST = '127.0.0.1'
const SHUTDOWN_GRACE_MS = 3_000
/** Request headers above this get 431: far beyond any real client's, small enough to be harmless. */
export const MAX_HEADER_BYTES = 32 * 1024

export interface ServerTimeouts {
  /** All request headers must arrive within this. */
  headersMs: number
  /** The whole request (headers and body) must arrive within this; the response is not limited. */
  requestMs: number
  keepAliveMs: number
  /** How often Node sweeps connections for the two limits above (its default, 30 s, lets a slow client linger). */
  checkIntervalMs: number
}

export const DEFAULT_TIMEOUTS: ServerTimeouts = { headersMs: 10_000, requestMs: 60_000, keepAliveMs: 5_000, checkIntervalMs: 2_000 }

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
  allowedOrigins?: readonly string[]
  /** Server timeouts; the defaults suit production, tests shorten them. */
  timeouts?: Partial<ServerTimeouts>
  /** `--optimizer`: the prompt optimizer's mode for deployments that don't set one. */
  optimizerMode?: OptimizerMode
  /** `--dialect`: the gateway's dialect when config.json doesn't name one. */
  dialect?: Dialect
  /** `--default-max-tokens`: max_tokens for models that don't set their own (null: send none). */
  defaultMaxTokens?: number | null
  /** Test-only: a shorter `: ping` interval than the usual 10 s. */
  pingIntervalMs?: number
  onCompletion?: GatewayConfig['onCompletion']
  /** `--capture`: what is kept of each exchange (docs/traffic.md); memory when left out. */
  capture?: CaptureMode
  /** The capture store's limits, where they differ from the mode's defaults. */
  captureLimits?: Partial<CaptureLimits>
  /** `--redis`/`--instance`: join a cluster of gateways (docs/cluster.md); flags win over config.json's `cluster`. */
  cluster?: { redisUrl?: string; instance?: string }
  /** Where the gateway's own operational lines go (Redis coming and going); stderr when left out. */
  log?: (line: string) => void
}

export interface GatewayServer {
  url: string
  port: number
  gateway: Gateway
  keys: KeyStore
  catalog: CatalogSource
  /** The cluster it joined, with `--redis`. */
  cluster: Cluster | undefined
  /** Open client connections right now (leak checks). */
  connections(): Promise<number>
  /** Stop live generations (their streams end cleanly), stop listening, and resolve when closed. */
  close(): Promise<void>
}

/** The gateway on a real socket: what `mortar serve` and the desktop app both run. */
export async function startGatewayServer(options: GatewayServerOptions): Promise<GatewayServer> {
  const catalog = new CatalogSource(options.home, {
    scriptedTokensPerSecond: options.scriptedTokensPerSecond ?? 0,
    ...(options.optimizerMode !== undefined ? { optimizerMode: options.optimizerMode } : {}),
    ...(options.dialect !== undefined ? { dialect: options.dialect } : {}),
    ...(options.defaultMaxTokens !== undefined ? { defaultMaxTokens: options.defaultMaxTokens } : {}),
    ...(options.upstream !== undefined ? { upstream: options.upstream } : {}),
  })
  // Flags win over config.json, which wins over the defaults.
  const fromConfig = catalog.capture()
  const capture = await openCapture(options.capture ?? fromConfig.mode ?? DEFAULT_CAPTURE_MODE, options.home, {
    ...limitsOfConfig(fromConfig),
    ...options.captureLimits,
  }).catch((error: unknown) => {
    catalog.close()
    throw error
  })
  // Bounded (each probe times out in 1.5 s, all run at once): start-up says what the servers said.
  await catalog.discovered()
  const clusterConfig = catalog.cluster()
  const redisUrl = options.cluster?.redisUrl ?? clusterConfig.redis
  const log = options.log ?? ((line: string) => process.stderr.write(line + '\n'))
  let cluster: Cluster | undefined
  let keys: KeyStore
  try {
    if (redisUrl !== undefined) {
      parseRedisUrl(redisUrl)
      // Checked before connecting: a bad name must fail start-up, not the first stop.
      if (options.cluster?.instance !== undefined || clusterConfig.instance !== undefined) instanceName(options.cluster?.instance ?? clusterConfig.instance, options.port)
      cluster = await Cluster.open(redisUrl, log)
    }
    // A cluster's keys live in Redis, read once here (bounded: commands time out), then followed.
    keys = cluster === undefined ? new KeyStore(join(options.home, 'keys.json')) : new KeyStore(await cluster.keyRecords(clusterConfig.keyCacheSeconds))
  } catch (error) {
    cluster?.close()
    catalog.close()
    capture.close()
    throw error
  }
  const gateway = createGateway({
    keys,
    capture,
    catalog: () => catalog.current(),
    organizations: () => catalog.organizations(),
    dialect: () => catalog.dialect().dialect,
    ...(options.pingIntervalMs !== undefined ? { pingIntervalMs: options.pingIntervalMs } : {}),
    ...(options.onCompletion !== undefined ? { onCompletion: options.onCompletion } : {}),
    ...(options.rendererDir !== undefined ? { rendererDir: options.rendererDir } : {}),
    ...(options.allowedHosts !== undefined ? { allowedHosts: options.allowedHosts } : {}),
    ...(options.allowedOrigins !== undefined ? { allowedOrigins: options.allowedOrigins } : {}),
    ...(cluster !== undefined ? { cluster } : {}),
  })
  const timeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts }
  const server = createServer(
    {
      // Slow-header (slowloris) and slow-body clients are cut; a response, however long it
      // streams, is never timed: these limits cover receiving the request only.
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      keepAliveTimeout: timeouts.keepAliveMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
      maxHeaderSize: MAX_HEADER_BYTES,
    },
    gateway.handler,
  )
  await listen(server, options.port, options.host).catch((error: unknown) => {
    // Nothing started: release the files (the capture database among them) for the next attempt.
    keys.close()
    catalog.close()
    capture.close()
    cluster?.close()
    throw error
  })
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : options.port
  // The instance is named once its port is known (--port 0 picks one at listen).
  cluster?.join(instanceName(options.cluster?.instance ?? clusterConfig.instance, port), gateway)
  const hostInUrl = options.host.includes(':') ? `[${options.host}]` : options.host
  let closing: Promise<void> | undefined
  return {
    url: `http://${hostInUrl}:${port}`,
    port,
    gateway,
    keys,
    catalog,
    cluster,
    connections: () => new Promise((resolve, reject) => server.getConnections((error, count) => (error ? reject(error) : resolve(count)))),
    close: () =>
      (closing ??= closeServer(server, gateway).finally(() => {
        keys.close()
        catalog.close()
        capture.close()
        cluster?.close()
      })),
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

function limitsOfConfig(config: MortarConfig['capture']): Partial<CaptureLimits> {
  return {
    ...(config.maxMegabytes !== undefined ? { max_bytes: Math.round(config.maxMegabytes * 1024 * 1024) } : {}),
    ...(config.maxExchanges !== undefined ? { max_exchanges: config.maxExchanges } : {}),
    ...(config.maxExchangeKilobytes !== undefined ? { max_exchange_bytes: config.maxExchangeKilobytes * 1024 } : {}),
    ...(config.retentionDays !== undefined ? { retention_days: config.retentionDays } : {}),
  }
}
