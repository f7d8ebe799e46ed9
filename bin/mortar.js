#!/usr/bin/env node
// The `mortar` command: the headless gateway, built by `npm run build` into out/main/cli.js.
const { existsSync } = require('node:fs')
const { join } = require('node:path')
const entry = join(__dirname, '..', 'out', 'main', 'cli.js')
if (!existsSync(entry)) {
  process.stderr.write('mortar: the CLI is not built yet. Run `npm run build` first.\n')
  process.exit(1)
}
require(entry)
