import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { createInterface } from 'node:readline'
import { afterEach, expect, it } from 'vitest'

// The README's run command, exactly as written there, must start a process whose Ctrl+C (SIGINT to
// that process) stops the gateway. `npx mortar serve` did not: npm keeps the gateway as a child and
// does not pass signals on.
const ROOT = resolve(__dirname, '../..')

/** The last command of the README's first code block ("npm ci && npm run build && <run command>"). */
function readmeRunCommand(): string[] {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const block = /```bash\n([^`]*)```/.exec(readme)?.[1]
  const command = block?.trim().split('&&').at(-1)?.trim()
  if (command === undefined || !command.endsWith(' serve')) throw new Error(`The README's first bash block does not end in a serve command: ${block}`)
  return command.split(/\s+/)
}

const homes: string[] = []
afterEach(() => {
  for (const home of homes.splice(0)) rmSync(home, { recursive: true, force: true })
})

it("SIGINT to the process the README's run command starts ends the gateway", async () => {
  if (!existsSync(join(ROOT, 'out/main/cli.js'))) throw new Error('out/main/cli.js is missing: run `npm run build` before these tests')
  const [program, ...args] = readmeRunCommand()
  const home = mkdtempSync(join(tmpdir(), 'mortar-readme-'))
  homes.push(home)
  const child = spawn(program!, [...args, '--port', '0', '--home', home], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)))
  const url = await new Promise<string>((found, failed) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const match = /listening on (http:\/\/\S+)/.exec(line)
      if (match?.[1] !== undefined) found(match[1])
    })
    void exited.then((code) => failed(new Error(`exited (${code}) before listening`)))
  })
  expect((await fetch(`${url}/health`)).status).toBe(200)

  child.kill('SIGINT')
  expect(await exited).toBe(0)
  // Nothing is left listening: the process that got the signal was the gateway.
  await expect(fetch(`${url}/health`)).rejects.toThrow()
})
