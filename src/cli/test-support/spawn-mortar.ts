import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'

// The real `mortar` binary, as a user runs it (built by `npm run build`, which `npm test` runs first).
const BIN = resolve(__dirname, '../../../bin/mortar.js')
const BUILT = resolve(__dirname, '../../../out/main/cli.js')

const children: ChildProcessWithoutNullStreams[] = []
const homes: string[] = []

/** Kill every process spawnMortar started and delete the homes it made (call in afterEach). */
export function stopAllMortars(): void {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
}

/** Start the real `mortar` with `args` and a home of its own (or `home`, which the caller owns). */
export function spawnMortar(args: string[], options: { readOnlyHome?: boolean; home?: string } = {}) {
  if (!existsSync(BUILT)) throw new Error('out/main/cli.js is missing: run `npm run build` before these tests')
  const home = options.home ?? mkdtempSync(join(tmpdir(), 'mortar-proc-'))
  if (options.home === undefined) homes.push(home)
  // Read-only for its user; root ignores modes, so as root the process runs as `nobody`.
  if (options.readOnlyHome) chmodSync(home, 0o555)
  const asNobody = options.readOnlyHome && process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
  const child = spawn(process.execPath, [BIN, ...args, '--home', home], { stdio: 'pipe', ...asNobody })
  children.push(child)
  const lines: string[] = []
  const waiters: Array<{ pattern: RegExp; resolve: (m: RegExpMatchArray) => void }> = []
  createInterface({ input: child.stdout }).on('line', (line) => {
    lines.push(line)
    for (const waiter of waiters.slice()) {
      const match = line.match(waiter.pattern)
      if (match) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(match)
      }
    }
  })
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  const line = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const found = lines.map((l) => l.match(pattern)).find(Boolean)
      if (found) return resolve(found)
      waiters.push({ pattern, resolve })
      void exited.then((code) => reject(new Error(`mortar exited (${code}) before printing ${pattern}: ${stderr}`)))
    })
  return { child, lines, line, exited, stderr: () => stderr }
}
