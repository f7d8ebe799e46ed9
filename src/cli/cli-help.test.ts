import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

// The real built `mortar` command, as a user runs it (`npm run build` first; `npm test` does):
// every command has its own --help, and a mistyped option gets one clear line and a hint, not
// Node's parseArgs message about positionals.
const BIN = resolve(__dirname, '../../bin/mortar.js')
const BUILT = resolve(__dirname, '../../out/main/cli.js')

function mortar(...args: string[]) {
  if (!existsSync(BUILT)) throw new Error('out/main/cli.js is missing: run `npm run build` before these tests')
  const result = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, MORTAR_HOME: '/nonexistent-mortar-home' } })
  return { code: result.status, out: result.stdout, err: result.stderr }
}

describe('mortar --help', () => {
  it.each([
    [['--help'], /^Usage: mortar <command> \[options\]$/m],
    [['-h'], /keys rotate\s+replace a key/],
    [['help'], /serve\s+run the gateway/],
    [['serve', '--help'], /mortar serve \[--host 127\.0\.0\.1\] \[--port 7313\]/],
    [['serve', '-h'], /--upstream-model: the model name the server knows/],
    [['help', 'serve'], /mortar serve \[--host/],
    [['keys', '--help'], /mortar keys create --name NAME[\s\S]*mortar keys rotate ID/],
    [['keys', 'create', '--help'], /^Usage: mortar keys create --name NAME .*\nMakes an API key/],
    [['keys', 'list', '--help'], /^Usage: mortar keys list \[--json\]\nLists the keys/],
    [['keys', 'revoke', '--help'], /^Usage: mortar keys revoke ID\nRevokes a key/],
    [['keys', 'rotate', '-h'], /^Usage: mortar keys rotate ID \[--json\]\nRevokes a key and makes its replacement/],
    [['help', 'keys'], /mortar keys list \[--json\]/],
  ])('mortar %j prints its help and exits 0', (args, pattern) => {
    const { code, out, err } = mortar(...args)
    expect(err).toBe('')
    expect(out).toMatch(pattern)
    expect(code).toBe(0)
  })

  it('answers --help before looking at the other options', () => {
    const { code, out } = mortar('serve', '--port', 'x', '--bogus', '--help')
    expect(out).toMatch(/^Usage:\n {2}mortar serve/)
    expect(code).toBe(0)
  })
})

describe('mistakes in how a command is called', () => {
  it.each([
    [['serve', '--prot', '80'], 'mortar serve: unknown option --prot. Did you mean --port?', 'mortar serve --help'],
    [['serve', '--frobnicate'], 'mortar serve: unknown option --frobnicate.', 'mortar serve --help'],
    [['serve', '--port'], 'mortar serve: --port needs a value.', 'mortar serve --help'],
    [['serve', 'now'], 'mortar serve: takes no arguments; got now.', 'mortar serve --help'],
    [['keys', 'create', '--nmae', 'ci'], 'mortar keys create: unknown option --nmae. Did you mean --name?', 'mortar keys create --help'],
    [['keys', 'list', '--jsn'], 'mortar keys list: unknown option --jsn. Did you mean --json?', 'mortar keys list --help'],
    [['keys', 'revoke'], 'mortar keys revoke: needs one key ID (the ID column of mortar keys list); got none.', 'mortar keys revoke --help'],
    [['keys', 'frob'], 'mortar keys: unknown action frob. Use create, list, revoke, rotate, import.', 'mortar keys --help'],
    [['keys', 'import'], "mortar keys import: import copies keys.json into a cluster's Redis: give --redis URL (or set config.json's cluster.redis).", 'mortar keys import --help'],
    [['keys', 'list', '--redis', 'http://127.0.0.1:1'], 'mortar keys list: --redis takes a redis:// or rediss:// URL; got http://….', 'mortar keys list --help'],
    [['frob'], 'mortar: unknown command frob.', 'mortar --help'],
  ])('mortar %j says what is wrong in a line, with a hint, and exits 2', (args, message, hint) => {
    const { code, out, err } = mortar(...args)
    expect(out).toBe('')
    expect(err.split('\n')).toEqual([message, `Run \`${hint}\` for ${hint === 'mortar --help' ? 'the commands' : 'its options'}.`, ''])
    expect(err).not.toContain('positional')
    expect(code).toBe(2)
  })
})
