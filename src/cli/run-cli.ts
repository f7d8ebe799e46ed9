import { KeyStoreError } from '../gateway/auth/key-store'
import { MORTAR_VERSION } from '../gateway/version'
import { UsageError, type CliIo } from './cli-io'
import { asksForHelp, explainParseError } from './command-help'
import { KEYS_ACTIONS, keysHelp, runKeysCommand } from './keys-command'
import { SERVE_USAGE, startServe, type ServeEnvironment } from './serve-command'

export const USAGE = `mortar ${MORTAR_VERSION}: a local OpenAI-compatible gateway.

Usage: mortar <command> [options]

Commands:
  serve           run the gateway (OpenAI base URL http://127.0.0.1:7313/v1, and the UI)
  keys create     make an API key
  keys list       list the API keys
  keys revoke     revoke a key
  keys rotate     replace a key
  keys import     copy keys.json into a cluster's Redis
  help [command]  a command's help (also: mortar <command> --help)

Options: --help, -h; --version, -v

Run \`mortar <command> --help\` for a command's options.`

/** The help text and name of the command argv is about, for `--help` and for usage errors. */
function commandOf(argv: readonly string[]): { name: string; help: string } {
  const [command, action] = argv
  if (command === 'serve') return { name: 'serve', help: SERVE_USAGE }
  if (command === 'keys') {
    const known = action !== undefined && Object.hasOwn(KEYS_ACTIONS, action)
    return { name: known ? `keys ${action}` : 'keys', help: keysHelp(action) }
  }
  return { name: '', help: USAGE }
}

/**
 * Run one CLI invocation. `serve` resolves only when the gateway has shut down, which happens on
 * the first SIGINT/SIGTERM: live streams are stopped (they end with `[DONE]`) and the process exits 0.
 */
export async function runCli(argv: string[], io: CliIo, env: ServeEnvironment = {}): Promise<number> {
  const [command, ...rest] = argv
  const { name, help } = commandOf(argv)
  try {
    if ((command === 'serve' || command === 'keys') && asksForHelp(rest)) {
      io.out(help)
      return 0
    }
    switch (command) {
      case 'serve':
        return await serveUntilSignalled(rest, io, env)
      case 'keys':
        return await runKeysCommand(rest, io)
      case '--version':
      case '-v':
        io.out(MORTAR_VERSION)
        return 0
      case 'help':
        io.out(commandOf(rest).help)
        return 0
      case undefined:
      case '--help':
      case '-h':
        io.out(USAGE)
        return command === undefined ? 2 : 0
      default:
        throw new UsageError(`unknown command ${command}.`)
    }
  } catch (caught) {
    const error = explainParseError(caught, help)
    if (error instanceof UsageError) {
      const where = name === '' ? 'mortar' : `mortar ${name}`
      io.err(`${where}: ${error.message}`)
      io.err(`Run \`${where} --help\` for ${name === '' ? 'the commands' : 'its options'}.`)
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
