import { join } from 'node:path'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import type { GatewaySettings } from '../shared/desktop-settings'
import type { GatewayServerOptions } from '../gateway/server'

export interface GatewayPaths {
  userData: string
  /** The built renderer, or undefined in dev (Vite serves it). */
  rendererDir: string | undefined
  /** In dev, the page comes from Vite's origin: the gateway must allow it (CORS). */
  devRendererUrl?: string | undefined
}

/** How the desktop app starts the gateway, from its settings (what `mortar serve` takes as flags). */
export function gatewayOptions(settings: GatewaySettings, paths: GatewayPaths, env: NodeJS.ProcessEnv, port = settings.port): GatewayServerOptions {
  const apiKey = env.MORTAR_UPSTREAM_API_KEY
  return {
    host: settings.host,
    port,
    home: join(paths.userData, 'home'),
    scriptedTokensPerSecond: settings.scriptedTokensPerSecond,
    optimizerMode: settings.optimizerMode,
    capture: settings.capture,
    ...(settings.modelServers.length > 0
      ? {
          upstream: {
            modelId: DEFAULT_MODEL_ID,
            urls: settings.modelServers,
            ...(settings.upstreamModel !== '' ? { upstreamModel: settings.upstreamModel } : {}),
            ...(apiKey !== undefined && apiKey !== '' ? { apiKey } : {}),
          },
        }
      : {}),
    ...(paths.rendererDir !== undefined ? { rendererDir: paths.rendererDir } : {}),
    ...(paths.devRendererUrl !== undefined ? { allowedOrigins: [new URL(paths.devRendererUrl).origin] } : {}),
  }
}

/** MORTAR_PORT (a second copy beside the default one, or a test) wins over the settings; 0 is any free port. */
export function portFromEnv(env: NodeJS.ProcessEnv): number | undefined {
  if (env.MORTAR_PORT === undefined || env.MORTAR_PORT === '') return undefined
  const port = Number(env.MORTAR_PORT)
  return Number.isInteger(port) && port >= 0 && port <= 65_535 ? port : undefined
}

export function isPortInUse(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: unknown }).code === 'EADDRINUSE'
}
