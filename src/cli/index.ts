import { join } from 'node:path'
import { processIo } from './cli-io'
import { runCli } from './run-cli'
import { setGatewayV8Flags } from '../gateway/v8-flags'

// The `mortar` command's entry (bin/mortar.js loads the build of this file, out/main/cli.js).
// The renderer build sits beside it, at out/renderer, and is served at `/`.
setGatewayV8Flags()
runCli(process.argv.slice(2), processIo, { rendererDir: join(__dirname, '..', 'renderer') }).then(
  (code) => {
    process.exitCode = code
  },
  (error: unknown) => {
    process.stderr.write(`mortar: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exitCode = 1
  },
)
