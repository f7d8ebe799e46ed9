import { KeyStoreError } from '../gateway/auth/key-store'
import { MORTAR_VERSION } from '../gateway/version'
import { UsageError, type CliIo } from './cli-io'
import { KEYS_USAGE, runKeysCommand } from './keys-command'
import { SERVE_USAGE, startServe, type ServeEnvironment } from './serve-command'

export const USAGE = `mortar ${MORTAR_VERSION}: a local OpenAI-compatible gateway.

${SERVE_USAGE}

${KEYS_USAGE}`

/**
 * Run one CLI invocation. `serve` resolves only when the gateway has shut down, which happens on
 * the first SIGINT/SIGTERM: live streams are stopped (they end with `[DONE]`) and the process exits 0.
 */
export async function runCli(argv: string[], io: CliIo, env: ServeEnvironment = {}): Promise<number> {
  const [command, ...rest] = argv
  try {
    switch (command) {
      case 'serve':
        return await serveUntilSignalled(rest, io, env)
      case 'keys':
        return runKeysCommand(rest, io)
      case '--version':
      case '-v':
        io.out(MORTAR_VERSION)
        return 0
      case undefined:
      case 'help':
      case '--help':
      case '-h':
        io.out(USAGE)
        return command === undefined ? 2 : 0
      default:
        throw new UsageError(`Unknown command: ${command}.`)
    }
  } catch (error) {
    if (error instanceof UsageError || (error as NodeJS.ErrnoException).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`mortar: ${(error as Error).message}\nRun \`mortar --help\` for usage.`)
      return 2
    }
    if (error instanceof KeyStoreError || error instanceof Error) {
      io.err(`mortar: ${error.message}`)
      return 1
    }
    throw error
  }
}

async function serveUntilSignalled(argv: string[], io: CliIo, env: ServeEnvironment): Promise<number> {
  // Listen for signals before starting: Ctrl-C during start-up must still shut down cleanly.
  let onSignal: (signal: NodeJS.Signals) => void = () => {}
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    onSignal = (signal) => {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      // A second signal while draining means "now".
      process.once('SIGINT', () => process.exit(130))
      process.once('SIGTERM', () => process.exit(143))
      resolve(signal)
    }
  })
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  let server
  try {
    server = await startServe(argv, io, env)
  } catch (error) {
    process.off('SIGINT', onSignal)
    process.off('SIGTERM', onSignal)
    throw error
  }
  const signal = await signalled
  const live = server.gateway.generations.size
  io.out(`${signal}: shutting down${live > 0 ? `, stopping ${live} live generation${live === 1 ? '' : 's'}` : ''}.`)
  await server.close()
  io.out('Gateway stopped.')
  return 0
}
