// Shared by run.ts and profile.ts: starting and stopping the processes, ports, RSS, load jobs.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, openSync, readFileSync, statSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { cpus, totalmem } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Kind, LoadJob, Machine, Proc, ResultByKind } from './types'

export const HERE = dirname(fileURLToPath(import.meta.url))
export const ROOT = join(HERE, '..', '..')
export const NODE = process.execPath
/** Node's flags that run a TypeScript file (the benchmark's own processes are TypeScript, run with tsx). */
export const TSX = ['--import', 'tsx']
export const PORTKEY_START = join(HERE, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js')

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms))
export const log = (message: string): void => void process.stderr.write(message + '\n')

/** The benchmark's own dependencies (Portkey, autocannon), in bench/gateway/node_modules. */
export function ensureBenchDependencies(): void {
  if (existsSync(PORTKEY_START) && existsSync(join(HERE, 'node_modules', 'autocannon'))) return
  log('Installing the benchmark\'s own dependencies (npm ci --prefix bench/gateway)…')
  execFileSync('npm', ['ci', '--prefix', HERE, '--no-audit', '--no-fund'], { stdio: 'inherit' })
}

/** Mortar's CLI build (out/main/cli.js); built once with `npm run build` if missing or asked. */
export function ensureMortarBuild({ rebuild = false }: { rebuild?: boolean } = {}): string {
  const cli = join(ROOT, 'out', 'main', 'cli.js')
  if (rebuild || !existsSync(cli)) {
    log('Building Mortar (npm run build)…')
    execFileSync('npm', ['run', 'build'], { cwd: ROOT, stdio: 'inherit' })
  }
  return cli
}

/** A port free on 127.0.0.1 right now. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo
      server.close(() => resolve(port))
    })
  })
}

const children = new Set<ChildProcess>()
let cleanupInstalled = false
function installCleanup() {
  if (cleanupInstalled) return
  cleanupInstalled = true
  const killAll = () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  }
  process.on('exit', killAll)
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      killAll()
      process.exit(130)
    })
  }
}

/** Start a long-lived process, its output going to `<logDir>/<name>.log`. */
export function startProcess(name: string, command: string, args: string[], { logDir, cwd = HERE, env = {} }: { logDir: string; cwd?: string; env?: Record<string, string> }): Proc {
  installCleanup()
  mkdirSync(logDir, { recursive: true })
  const logFile = join(logDir, `${name}.log`)
  const fd = openSync(logFile, 'w')
  const child = spawn(command, args, { cwd, stdio: ['ignore', fd, fd], env: { ...process.env, ...env } })
  children.add(child)
  child.on('exit', () => children.delete(child))
  if (child.pid === undefined) throw new Error(`${name} did not start`)
  return { name, child, pid: child.pid, logFile }
}

/** Stop a process we started, by its PID: SIGTERM, then SIGKILL after `graceMs`. */
export async function stopProcess(proc: Proc, graceMs = 5000): Promise<void> {
  const { child } = proc
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
  await exited
  clearTimeout(timer)
}

export function tail(file: string, lines = 20): string {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n')
  } catch {
    return ''
  }
}

/** Poll `url` until it answers 2xx (or `timeoutMs` passes). */
export async function waitReady(proc: Proc, url: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (proc.child.exitCode !== null) throw new Error(`${proc.name} exited (${proc.child.exitCode}) before it was ready:\n${tail(proc.logFile)}`)
    try {
      const abort = new AbortController()
      const timer = setTimeout(() => abort.abort(), 1000)
      const res = await fetch(url, { signal: abort.signal }).finally(() => clearTimeout(timer))
      await res.arrayBuffer()
      if (res.ok) return
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${proc.name} was not ready at ${url} within ${timeoutMs} ms:\n${tail(proc.logFile)}`)
    await sleep(100)
  }
}

/** Resident set size of a process, in MB, from /proc/<pid>/status (VmRSS). */
export function rssMb(pid: number): number | undefined {
  try {
    const match = /VmRSS:\s+(\d+)\s+kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Math.round((Number(match[1]) / 1024) * 10) / 10 : undefined
  } catch {
    return undefined
  }
}

/** The local addresses a port is listened on, from /proc/net/tcp and tcp6 (to show loopback only). */
export function listeningAddresses(port: number): string[] {
  const found: string[] = []
  for (const [file, v6] of [
    ['/proc/net/tcp', false],
    ['/proc/net/tcp6', true],
  ] as const) {
    let text
    try {
      text = readFileSync(file, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      const parts = line.trim().split(/\s+/)
      if (parts.length < 4 || parts[3] !== '0A') continue // 0A = LISTEN
      const [addrHex = '', portHex = ''] = (parts[1] ?? '').split(':')
      if (parseInt(portHex, 16) !== port) continue
      found.push(v6 ? ipv6(addrHex) : ipv4(addrHex))
    }
  }
  return found
}
const ipv4 = (hex: string): string => (hex.match(/../g) ?? []).reverse().map((b) => parseInt(b, 16)).join('.')
function ipv6(hex: string): string {
  if (hex === '00000000000000000000000000000000') return '::'
  if (hex === '00000000000000000000000001000000') return '::1'
  if (hex.startsWith('0000000000000000FFFF0000')) return '::ffff:' + ipv4(hex.slice(24))
  return hex
}

/**
 * Run one of the benchmark's own TypeScript files in a fresh process with `job` as its argument;
 * resolves with the last line it prints, parsed as JSON.
 */
function runJsonProcess<R>(file: string, job: object, errorTail: number): Promise<R> {
  return new Promise((resolve, reject) => {
    const child = spawn(NODE, [...TSX, join(HERE, file), JSON.stringify(job)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
    children.add(child)
    let out = ''
    let err = ''
    child.stdout.on('data', (c) => (out += c))
    child.stderr.on('data', (c) => (err += c))
    child.on('exit', (code) => {
      children.delete(child)
      try {
        resolve(JSON.parse(out.trim().split('\n').pop() ?? '') as R)
      } catch {
        reject(new Error(`${file} exited ${code}: ${err.slice(-errorTail)}`))
      }
    })
  })
}

/** Run one job in a fresh load-generator process (load.ts); resolves with its JSON result. */
export async function runLoad<K extends Kind>(job: LoadJob & { kind: K }): Promise<ResultByKind[K]> {
  const result = await runJsonProcess<ResultByKind[K]>('load.ts', job, 2000)
  if (result.error) throw new Error(result.error)
  return result
}

/** Run autocannon (closed loop, fixed body) in its own process (autocannon-job.ts). */
export function runAutocannon(job: AutocannonJob): Promise<AutocannonResult> {
  return runJsonProcess<AutocannonResult>('autocannon-job.ts', job, 1000)
}

export interface AutocannonJob {
  url: string
  headers: Record<string, string>
  body: string
  connections: number
  durationS: number
}
/** What run.ts reads of autocannon's result, plus autocannon-job.ts's own CPU. */
export interface AutocannonResult {
  requests: { average: number }
  non2xx: number
  errors: number
  timeouts: number
  wallMs: number
  loadCpuCores: number
  foreignCores?: number
}

export function machineFacts(): Machine {
  const cpu = cpus()
  let commit = 'unknown'
  let dirty = false
  try {
    commit = execFileSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim()
    dirty = execFileSync('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, encoding: 'utf8' }).trim() !== ''
  } catch {
    // not a git checkout
  }
  const cli = join(ROOT, 'out', 'main', 'cli.js')
  const readVersion = (pkg: string): string | undefined => {
    try {
      return (JSON.parse(readFileSync(join(HERE, 'node_modules', pkg, 'package.json'), 'utf8')) as { version?: string }).version
    } catch {
      return undefined
    }
  }
  return {
    nproc: Number(execFileSync('nproc', { encoding: 'utf8' }).trim()),
    cpuModel: cpu[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    mortar: { commit, srcModifiedSinceCommit: dirty, build: existsSync(cli) ? statSync(cli).mtime.toISOString() : null },
    portkey: { version: readVersion('@portkey-ai/gateway'), honoNodeServer: readVersion('@hono/node-server'), hono: readVersion('hono') },
    autocannon: readVersion('autocannon'),
  }
}

// ---------- other people's CPU ----------
// This machine may be shared (tests, builds): a job during which other processes used CPU is
// measured again. "Foreign" CPU = all busy CPU (/proc/stat) − what our own processes used.
const CLK_TCK = 100

export function cpuBusyTicks(): number {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '').trim().split(/\s+/).slice(1).map(Number)
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields
  return user + nice + system + irq + softirq + steal
}

export function processTicks(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[11]) + Number(fields[12]) // utime + stime
  } catch {
    return 0
  }
}

/** A snapshot to compare later: busy ticks of the machine and of the given PIDs, and the time. */
export interface CpuSnapshot {
  at: number
  busy: number
  ours: number
  self: NodeJS.CpuUsage
}

export function cpuSnapshot(pids: number[]): CpuSnapshot {
  return { at: performance.now(), busy: cpuBusyTicks(), ours: pids.reduce((sum, pid) => sum + processTicks(pid), 0), self: process.cpuUsage() }
}

/** Cores used by others since `snap` (our PIDs, this process and `extraCoreSeconds` excluded). */
export function foreignCores(snap: CpuSnapshot, pids: number[], extraCoreSeconds = 0): number {
  const seconds = (performance.now() - snap.at) / 1000
  if (seconds <= 0) return 0
  const busy = (cpuBusyTicks() - snap.busy) / CLK_TCK
  const ours = (pids.reduce((sum, pid) => sum + processTicks(pid), 0) - snap.ours) / CLK_TCK
  const self = process.cpuUsage(snap.self)
  const selfSeconds = (self.user + self.system) / 1e6
  return Math.max(0, Math.round(((busy - ours - selfSeconds - extraCoreSeconds) / seconds) * 100) / 100)
}

/** Wait (up to `maxWaitMs`) until other processes use less than `limit` cores over `windowMs`. */
export async function waitForQuiet(
  pids: number[],
  { limit = 0.3, windowMs = 400, maxWaitMs = 15_000 }: { limit?: number; windowMs?: number; maxWaitMs?: number } = {},
): Promise<{ waitedMs: number; foreign: number; gaveUp?: boolean }> {
  const start = performance.now()
  let waited = false
  for (;;) {
    const snap = cpuSnapshot(pids)
    await sleep(windowMs)
    const foreign = foreignCores(snap, pids)
    if (foreign < limit) return { waitedMs: Math.round(performance.now() - start), foreign }
    if (!waited) log(`  (others are using ${foreign} cores; waiting for a quiet machine…)`)
    waited = true
    if (performance.now() - start > maxWaitMs) return { waitedMs: Math.round(performance.now() - start), foreign, gaveUp: true }
  }
}

/**
 * Stage timings per prompt, printed as a table (a row per prompt, a column per stage): `results`
 * holds this checkout's alone or, with `baseline`, the baseline's first, so each cell reads
 * before → after.
 */
export function printStagesBeforeAfter(
  baseline: string | undefined,
  stages: readonly string[],
  unit: string,
  results: readonly Record<string, Record<string, number | string>>[],
): void {
  console.log(`| prompt | ${stages.map((s) => `${s} (${unit})`).join(' | ')} |`)
  console.log(`|---|${stages.map(() => '---:').join('|')}|`)
  for (const cell of Object.keys(results[0] ?? {})) {
    const value = (stage: string) => results.map((r) => r[cell]?.[stage] ?? NaN).join(' → ')
    console.log(`| ${cell} | ${stages.map(value).join(' | ')} |`)
  }
  if (baseline !== undefined) console.log('\nEach cell: baseline → this checkout.')
}
