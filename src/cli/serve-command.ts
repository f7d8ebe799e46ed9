import { parseArgs } from 'node:util'
import { DEFAULT_MODEL_ID } from '../shared/api/chat-request'
import { LOOPBACK_HOSTS } from '../gateway/http/host-allow-list'
import { DEFAULT_HOST, DEFAULT_PORT, startGatewayServer, type GatewayServer } from '../gateway/server'
import { MORTAR_VERSION } from '../gateway/version'
import { UsageError, type CliIo } from './cli-io'
import { defaultHome } from './home'

export const SERVE_USAGE = `Usage:
  mortar serve [--host 127.0.0.1] [--port ${DEFAULT_PORT}] [--home DIR] [--scripted-tps N] [--allow-host NAME]…
  --port 0 picks a free port; the URL is printed.
  --scripted-tps paces the scripted model (tokens per second, 0 = as fast as possible).
  --allow-host adds a name the gateway answers to besides localhost, 127.0.0.1 and [::1].`

export interface ServeEnvironment {
  rendererDir?: string
}

/** Parse `mortar serve` arguments, start the gateway, and print where it is. */
export async function startServe(argv: string[], io: CliIo, env: ServeEnvironment = {}): Promise<GatewayServer> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    strict: true,
    options: {
      host: { type: 'string', default: DEFAULT_HOST },
      port: { type: 'string', default: String(DEFAULT_PORT) },
      home: { type: 'string' },
      'scripted-tps': { type: 'string', default: '0' },
      'allow-host': { type: 'string', multiple: true, default: [] },
    },
  })
  if (positionals.length > 0) throw new UsageError(`serve takes no arguments; got ${positionals.join(' ')}.`)
  const port = wholeNumber(values.port, '--port', 65_535)
  const tokensPerSecond = wholeNumber(values['scripted-tps'], '--scripted-tps', 1_000_000)
  const home = values.home ?? defaultHome()

  const server = await startGatewayServer({
    host: values.host,
    port,
    home,
    scriptedTokensPerSecond: tokensPerSecond,
    allowedHosts: values['allow-host'],
    ...(env.rendererDir !== undefined ? { rendererDir: env.rendererDir } : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') {
      throw new Error(`Port ${port} on ${values.host} is already in use. Pick another with --port, or --port 0 for any free one.`)
    }
    throw error
  })

  io.out(`Mortar ${MORTAR_VERSION}: gateway listening on ${server.url}`)
  io.out(`  OpenAI base URL: ${server.url}/v1`)
  io.out(`  Home:            ${home}`)
  io.out(`  Model:           ${DEFAULT_MODEL_ID} (scripted model, ${tokensPerSecond === 0 ? 'unpaced' : `${tokensPerSecond} tokens/s`})`)
  if (!(LOOPBACK_HOSTS as readonly string[]).includes(values.host) && values.host !== '::1') {
    io.err(`Warning: listening on ${values.host}, not only on this machine. Anyone who can reach it and holds a key can use it.`)
  }
  if (server.keys.isEmpty()) {
    const { key, record } = server.keys.create({ name: 'default', role: 'owner' })
    io.out('')
    io.out(`No API keys existed, so Mortar created one (${record.id}, owner, expires ${record.expiresAt}):`)
    io.out(`  ${key}`)
    io.out('It is shown only this once. More keys: mortar keys create --name NAME')
  }
  return server
}

function wholeNumber(value: string, flag: string, max: number): number {
  const n = Number(value)
  if (!/^\d+$/.test(value) || n > max) throw new UsageError(`${flag} takes a whole number from 0 to ${max}; got ${JSON.stringify(value)}.`)
  return n
}
