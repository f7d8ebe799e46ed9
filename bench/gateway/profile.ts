// Where Mortar's time goes: runs Mortar under `node --cpu-prof` against the fake model server, once
// under JSON load and once under stream load, and ranks self time by function and by file —
// Mortar's own functions mapped back to src/ through source maps.
//
//   npm run bench:profile -- [--seconds 8] [--json-concurrency 8] [--streams 200]
//   npm run bench:profile -- --sizes [--seconds 5]    one profile per prompt size (sweep.ts's
//        cells: stable 340 B … growing 128 KB), sequential JSON requests as the sweep sends them,
//        ranked by µs per request: results/profile-sizes.md and .json
//   npm run bench:profile -- --sizes --api responses|messages    the same cells sent to that API
//        (as the sweep sends them): results/profile-sizes-<api>.md and .json
//
// It builds a source-mapped copy of Mortar into node_modules/.cache/mortar-bench-profile (the
// project's own build, `electron-vite build --sourcemap --outDir …`; out/ is not touched), writes
// the .cpuprofile files to bench/gateway/results/profiles/ (open them in Chrome DevTools or
// speedscope for flame graphs) and the ranking to bench/gateway/results/profile.md and .json.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { SourceMap } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import WebSocket from 'ws'
import { startMortar, startUpstream } from './contenders'
import { apiOption, cellName, routeOf, SWEEP_CELLS } from './sweep'
import { ensureBenchDependencies, HERE, log, ROOT, runLoad, sleep, stopProcess } from './lib'
import type { JsonSeqResult, LoadJob, StreamResult, Upstream } from './types'

/** One profiled load: the .cpuprofile (or .heapprofile), the load's result, and its window on the profile's clock. */
interface Run {
  file: string
  load: Partial<JsonSeqResult & StreamResult>
  window?: { fromUs: number; toUs: number } | undefined
}
/** A V8 CPU profile (.cpuprofile), as much of it as the analysis reads. */
interface CallFrame {
  url: string
  functionName: string
  lineNumber: number
  columnNumber: number
}
interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[]
  samples: number[]
  timeDeltas: number[]
  startTime: number
  endTime: number
}
interface HeapNode {
  callFrame: CallFrame
  selfSize: number
  children?: HeapNode[]
}
interface Where {
  name: string
  file: string
  line?: number
  group: string
}
type Warm = (job: Omit<LoadJob, 'kind'>) => Promise<unknown>
type Load = (job: Omit<LoadJob, 'kind'>) => Promise<Run['load']>

const { values: opts } = parseArgs({
  options: {
    seconds: { type: 'string', default: '8' },
    'json-concurrency': { type: 'string', default: '8' },
    streams: { type: 'string', default: '200' },
    'no-build': { type: 'boolean', default: false },
    top: { type: 'string', default: '25' },
    'analyze-only': { type: 'boolean', default: false },
    sizes: { type: 'boolean', default: false },
    api: { type: 'string', default: 'chat' },
  },
})
const API = apiOption(opts.api)
if (API !== 'chat' && !opts.sizes) throw new Error('--api goes with --sizes')
const SECONDS = Number(opts.seconds)
const TOP = Number(opts.top)
const BUILD = join(ROOT, 'node_modules', '.cache', 'mortar-bench-profile')
const PROFILES = join(HERE, 'results', 'profiles')

const REPORT = !opts.sizes ? 'profile' : API === 'chat' ? 'profile-sizes' : `profile-sizes-${API}`
let runs: Record<string, Run>
if (opts['analyze-only']) {
  // Re-rank the profiles of the last run (e.g. with another --top), without running anything.
  const last = JSON.parse(readFileSync(join(HERE, 'results', `${REPORT}.json`), 'utf8')) as Record<string, { profile: string; load: Run['load']; window?: Run['window'] }>
  runs = Object.fromEntries(Object.entries(last).map(([name, r]) => [name, { file: join(ROOT, r.profile), load: r.load, window: r.window }]))
} else {
  runs = opts.sizes ? await profileSizes() : await profileAll()
}

function buildProfiled(): void {
  if (!opts['no-build'] || !existsSync(join(BUILD, 'main', 'cli.js'))) {
    log(`Building a source-mapped Mortar into ${relative(ROOT, BUILD)}…`)
    execFileSync('npx', ['electron-vite', 'build', '--sourcemap', '--outDir', BUILD], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] })
  }
  mkdirSync(PROFILES, { recursive: true })
}

/** Run Mortar under --cpu-prof for `load` (after `warm`), keep the profile and the load's window. */
async function profileMortar(upstream: Upstream, logDir: string, name: string, warm: Warm, load: Load): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), `mortar-cpuprof-${name}-`))
  const mortar = await startMortar(upstream, {
    logDir,
    name: `mortar-${name}`,
    cli: join(BUILD, 'main', 'cli.js'),
    nodeArgs: ['--cpu-prof', '--cpu-prof-dir', dir, '--cpu-prof-interval', '250'],
  })
  const job = { ...routeOf(mortar, API), headers: mortar.headers, deltas: 64, intervalMs: 20, lateMs: 10 }
  await warm(job)
  log(`profiling Mortar under ${name} for ${SECONDS} s…`)
  // The window of the measured load on the profile's clock (V8's and hrtime are both CLOCK_MONOTONIC,
  // in µs): start-up (tokenizer loading, module compilation) and warm-up fall outside and are left out.
  const fromUs = Number(process.hrtime.bigint() / 1000n)
  const result = await load(job)
  const toUs = Number(process.hrtime.bigint() / 1000n)
  await stopProcess(mortar.proc, 10_000)
  rmSync(mortar.home, { recursive: true, force: true })
  const file = readdirSync(dir).find((f) => f.endsWith('.cpuprofile'))
  if (file === undefined) throw new Error(`no .cpuprofile written in ${dir} (did Mortar exit cleanly?)`)
  const target = join(PROFILES, `mortar-${name}.cpuprofile`)
  writeFileSync(target, readFileSync(join(dir, file)))
  rmSync(dir, { recursive: true, force: true })
  return { file: target, load: result, window: { fromUs, toUs } }
}

/** One profile per sweep cell: sequential JSON requests of that prompt shape and size. */
async function profileSizes(): Promise<Record<string, Run>> {
  ensureBenchDependencies()
  buildProfiled()
  const logDir = mkdtempSync(join(tmpdir(), 'mortar-profile-logs-'))
  const upstream = await startUpstream({ logDir, deltas: 64, intervalMs: 20 })
  const out: Record<string, Run> = {}
  for (const [index, cell] of SWEEP_CELLS.entries()) {
    const prompt = { shape: cell.shape, bytes: cell.bytes }
    const name = `${API === 'chat' ? '' : `${API}-`}${cellName(cell).replace(/ /g, '-')}`
    out[name] = await profileMortar(
      upstream,
      logDir,
      name,
      (job) => runLoad({ ...job, kind: 'json-seq', concurrency: 1, warmup: 0, count: 200, prompt, first: (index + 1) * 10_000_000 }),
      (job) => runLoad({ ...job, kind: 'json-seq', concurrency: 1, warmup: 0, count: 1_000_000, hardLimitMs: SECONDS * 1000, prompt, first: (index + 1) * 10_000_000 + 96_000 }),
    )
  }
  await stopProcess(upstream.proc)
  return out
}

async function profileAll(): Promise<Record<string, Run>> {
  ensureBenchDependencies()
  buildProfiled()
  const logDir = mkdtempSync(join(tmpdir(), 'mortar-profile-logs-'))
  const upstream = await startUpstream({ logDir, deltas: 64, intervalMs: 20 })
  // Warm up first (JIT), so the profile shows the steady state.
  const warm: Warm = async (job) => {
    await runLoad({ ...job, kind: 'json-seq', concurrency: 4, warmup: 0, count: 1500 })
    await runLoad({ ...job, kind: 'stream', concurrency: 20, durationMs: 1500, rampMs: 200 })
  }
  const profileUnder = (name: string, load: Load): Promise<Run> => profileMortar(upstream, logDir, name, warm, load)

  const result: Record<string, Run> = {
    json: await profileUnder('json', (job) =>
      runLoad({ ...job, kind: 'json-seq', concurrency: Number(opts['json-concurrency']), warmup: 0, count: 1_000_000, hardLimitMs: SECONDS * 1000 }),
    ),
    stream: await profileUnder('stream', (job) =>
      runLoad({ ...job, kind: 'stream', concurrency: Number(opts.streams), durationMs: SECONDS * 1000, rampMs: 1000 }),
    ),
  }
  result.alloc = await allocationsUnder()
  await stopProcess(upstream.proc)
  return result

  /**
   * Allocation sampling under the JSON load: V8's sampling heap profiler over the inspector
   * protocol (127.0.0.1, a port of its own), counting objects the GC has already collected too —
   * so it shows where the garbage comes from, which is what the scavenges (and p99) pay for.
   */
  async function allocationsUnder(): Promise<Run> {
    const mortar = await startMortar(upstream, { logDir, name: 'mortar-alloc', cli: join(BUILD, 'main', 'cli.js'), nodeArgs: ['--inspect=127.0.0.1:0'] })
    const job = { url: mortar.url, headers: mortar.headers, deltas: 64, intervalMs: 20, lateMs: 10 }
    await runLoad({ ...job, kind: 'json-seq', concurrency: 4, warmup: 0, count: 1500 })
    const wsUrl = /ws:\/\/127\.0\.0\.1:\d+\/[\w-]+/.exec(readFileSync(mortar.proc.logFile, 'utf8'))?.[0]
    if (wsUrl === undefined) throw new Error('no inspector URL in the log of mortar-alloc')
    const inspector = await connectInspector(wsUrl)
    await inspector.call('HeapProfiler.enable')
    await inspector.call('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true })
    log(`sampling Mortar's allocations under JSON load for ${SECONDS} s…`)
    const load = await runLoad({ ...job, kind: 'json-seq', concurrency: Number(opts['json-concurrency']), warmup: 0, count: 1_000_000, hardLimitMs: SECONDS * 1000 })
    const { profile } = (await inspector.call('HeapProfiler.stopSampling')) as { profile: unknown }
    inspector.close()
    await sleep(100)
    await stopProcess(mortar.proc, 10_000)
    rmSync(mortar.home, { recursive: true, force: true })
    const target = join(PROFILES, 'mortar-json.heapprofile')
    writeFileSync(target, JSON.stringify(profile))
    return { file: target, load }
  }
}

interface Inspector {
  call: (method: string, params?: object) => Promise<unknown>
  close: () => void
}

function connectInspector(url: string): Promise<Inspector> {
  return new Promise((resolveSocket, reject) => {
    const socket = new WebSocket(url)
    const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>()
    let next = 1
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as { id: number; error?: { message: string }; result?: unknown }
      const waiter = pending.get(message.id)
      if (waiter === undefined) return
      pending.delete(message.id)
      if (message.error) waiter.reject(new Error(message.error.message))
      else waiter.resolve(message.result)
    })
    socket.once('error', reject)
    socket.once('open', () =>
      resolveSocket({
        call: (method, params = {}) =>
          new Promise<unknown>((ok, fail) => {
            const id = next++
            pending.set(id, { resolve: ok, reject: fail })
            socket.send(JSON.stringify({ id, method, params }))
          }),
        close: () => socket.close(),
      }),
    )
  })
}

// ---------- analysis ----------

const sourceMaps = new Map<string, { map: SourceMap; dir: string } | null>()
function sourceMapFor(url: string): { map: SourceMap; dir: string } | null {
  if (!sourceMaps.has(url)) {
    let map: { map: SourceMap; dir: string } | null = null
    try {
      const path = url.startsWith('file:') ? fileURLToPath(url) : url
      if (existsSync(path + '.map')) map = { map: new SourceMap(JSON.parse(readFileSync(path + '.map', 'utf8')) as ConstructorParameters<typeof SourceMap>[0]), dir: dirname(path) }
    } catch {
      map = null
    }
    sourceMaps.set(url, map)
  }
  return sourceMaps.get(url) ?? null
}

/** Where a profiled function comes from: a src/ file (via the source map), a package, or Node. */
function locate(callFrame: CallFrame): Where {
  const { url, functionName, lineNumber, columnNumber } = callFrame
  const name = functionName || '(anonymous)'
  if (!url) return { name, file: name.startsWith('(') ? name : '(native)', group: name.startsWith('(') ? name : 'V8 / native' }
  if (url.startsWith('node:')) return { name, file: url, group: 'Node core (' + url.replace(/^node:(internal\/)?/, '').split('/')[0] + ')' }
  const sm = url.includes(relative(ROOT, BUILD)) ? sourceMapFor(url) : null
  if (sm) {
    const entry = sm.map.findEntry(lineNumber, columnNumber)
    if (entry && 'originalSource' in entry && entry.originalSource) {
      const abs = resolve(sm.dir, entry.originalSource.replace(/^file:\/\//, ''))
      const rel = relative(ROOT, abs)
      if (rel.startsWith('src/')) return { name, file: rel, line: entry.originalLine + 1, group: 'Mortar ' + rel.split('/').slice(0, 3).join('/') }
      const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(rel)?.[1]
      if (pkg) return { name, file: rel, group: 'package ' + pkg }
      return { name, file: rel, group: 'bundle' }
    }
  }
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)?.[1]
  if (pkg) return { name, file: url.replace(/^.*node_modules\//, ''), line: lineNumber + 1, group: 'package ' + pkg }
  return { name, file: url, line: lineNumber + 1, group: 'other' }
}

interface FnTotals extends Where {
  selfUs: number
  inclusiveUs: number
}

function analyze(file: string, window: Run['window']) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const self = new Map<number, number>()
  const dt = profile.timeDeltas
  // Only samples inside the load's window count (if the clocks agree; else the whole profile).
  const inWindow = window && profile.startTime <= window.toUs && profile.endTime >= window.fromUs
  let t = profile.startTime
  for (let i = 0; i < profile.samples.length; i++) {
    t += dt[i] ?? 0
    if (inWindow && (t < window.fromUs || t > window.toUs)) continue
    const id = profile.samples[i] ?? -1
    const d = dt[i + 1] ?? 0
    self.set(id, (self.get(id) ?? 0) + d)
  }
  // Inclusive time: self time of a node plus all its descendants.
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)
  const total = profile.nodes.reduce((sum, n) => sum + (self.get(n.id) ?? 0), 0)
  const idle = profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').reduce((s, n) => s + (self.get(n.id) ?? 0), 0)
  const busy = total - idle
  const fn = new Map<string, FnTotals>()
  const groups = new Map<string, number>()
  const inclusive = new Map<string, number>()
  for (const n of profile.nodes) {
    const us = self.get(n.id) ?? 0
    const where = locate(n.callFrame)
    if (where.name === '(idle)') continue
    const key = `${where.name} ${where.file}${where.line ? ':' + where.line : ''}`
    const f = fn.get(key) ?? { ...where, selfUs: 0, inclusiveUs: 0 }
    f.selfUs += us
    fn.set(key, f)
    groups.set(where.group, (groups.get(where.group) ?? 0) + us)
    if (us === 0) continue
    // Credit every distinct function on the stack once (recursion counted once).
    const seen = new Set<string>()
    for (let id: number | undefined = n.id; id !== undefined; id = parent.get(id)) {
      const w = locate(byId.get(id)!.callFrame)
      const k = `${w.name} ${w.file}${w.line ? ':' + w.line : ''}`
      if (seen.has(k)) continue
      seen.add(k)
      inclusive.set(k, (inclusive.get(k) ?? 0) + us)
    }
  }
  for (const [k, us] of inclusive) {
    const f = fn.get(k)
    if (f) f.inclusiveUs = us
  }
  const pct = (us: number): number => Math.round((us / busy) * 1000) / 10
  const functions = [...fn.values()].sort((a, b) => b.selfUs - a.selfUs)
  return {
    counted: inWindow ? 'the load only (start-up and warm-up excluded)' : 'the whole process (clocks did not match)',
    durationS: Math.round(total / 1e4) / 100,
    busyS: Math.round(busy / 1e4) / 100,
    idlePct: Math.round((idle / total) * 1000) / 10,
    groups: [...groups.entries()].map(([group, us]) => ({ group, selfPct: pct(us), selfMs: Math.round(us / 1000) })).sort((a, b) => b.selfMs - a.selfMs),
    allFunctions: functions.filter((f) => f.inclusiveUs > 0).map((f) => ({ name: f.name, where: f.line ? `${f.file}:${f.line}` : f.file, inclusivePct: pct(f.inclusiveUs) })),
    topSelf: functions.slice(0, TOP).map((f) => ({ name: f.name, where: f.line ? `${f.file}:${f.line}` : f.file, group: f.group, selfPct: pct(f.selfUs), inclusivePct: pct(f.inclusiveUs) })),
    mortarInclusive: functions
      .filter((f) => f.group.startsWith('Mortar'))
      .sort((a, b) => b.inclusiveUs - a.inclusiveUs)
      .slice(0, TOP)
      .map((f) => ({ name: f.name, where: `${f.file}:${f.line}`, selfPct: pct(f.selfUs), inclusivePct: pct(f.inclusiveUs) })),
  }
}

/** Bytes allocated per function (self and inclusive) from a sampling heap profile. */
interface AllocTotals extends Where {
  self: number
  inclusive: number
}

function analyzeAllocations(file: string, requests: number) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { head: HeapNode }
  const fn = new Map<string, AllocTotals>()
  const groups = new Map<string, number>()
  let total = 0
  const visit = (node: HeapNode, stack: string[]): void => {
    const where = locate(node.callFrame)
    const key = `${where.name} ${where.file}${where.line ? ':' + where.line : ''}`
    const f = fn.get(key) ?? { ...where, self: 0, inclusive: 0 }
    fn.set(key, f)
    f.self += node.selfSize
    total += node.selfSize
    groups.set(where.group, (groups.get(where.group) ?? 0) + node.selfSize)
    const inner = stack.includes(key) ? stack : [...stack, key]
    for (const k of inner) fn.get(k)!.inclusive += node.selfSize
    for (const child of node.children ?? []) visit(child, inner)
  }
  visit(profile.head, [])
  const pct = (b: number): number => Math.round((b / total) * 1000) / 10
  const kb = (b: number): number => Math.round((b / 1024 / Math.max(1, requests)) * 10) / 10
  const list = [...fn.values()]
  return {
    totalMb: Math.round(total / 1e5) / 10,
    perRequestKb: kb(total),
    groups: [...groups.entries()].map(([group, b]) => ({ group, pct: pct(b), perRequestKb: kb(b) })).sort((a, b) => b.pct - a.pct),
    top: list.sort((a, b) => b.self - a.self).slice(0, TOP).map((f) => ({ name: f.name, where: f.line ? `${f.file}:${f.line}` : f.file, group: f.group, pct: pct(f.self), perRequestKb: kb(f.self) })),
    mortarInclusive: list
      .filter((f) => f.group.startsWith('Mortar'))
      .sort((a, b) => b.inclusive - a.inclusive)
      .slice(0, TOP)
      .map((f) => ({ name: f.name, where: `${f.file}:${f.line}`, pct: pct(f.inclusive), perRequestKb: kb(f.inclusive) })),
  }
}

const report: Record<string, Record<string, unknown>> = {}
const md = [`Profiles of Mortar (\`npm run bench:profile${opts.sizes ? ` -- --sizes${API === 'chat' ? '' : ` --api ${API}`}` : ''}\`, ${new Date().toISOString()}, Node ${process.version}). Percentages are of Mortar's busy (non-idle) CPU time.`, '']
if (opts.sizes) renderSizes()
else renderLoads()

function renderLoads(): void {
  for (const [name, run] of Object.entries(runs).filter(([n]) => n !== 'alloc')) {
    const a = analyze(run.file, run.window)
    report[name] = { ...a, profile: relative(ROOT, run.file), window: run.window, load: run.load }
    const l = run.load
    md.push(`### Under ${name === 'json' ? `JSON load (${opts['json-concurrency']} clients, closed loop)` : `stream load (${opts.streams} concurrent streams)`}`)
    md.push('')
    md.push(
      name === 'json'
        ? `Load: ${l.completed} requests, ${l.rate} req/s, p50 ${l.latency?.p50} ms. `
        : `Load: ${l.streams} streams, ${l.frames} deltas, ${l.lostStreams} lost, TTFT p50 ${l.ttft?.p50} ms. `,
    )
    md.push(`Profile of ${a.counted}: ${a.durationS} s, ${a.busyS} s busy (${a.idlePct}% idle). File: \`${relative(ROOT, run.file)}\`.`)
    md.push('')
    md.push('| self time by origin | % of busy |')
    md.push('|---|---:|')
    for (const g of a.groups.slice(0, 18)) md.push(`| ${g.group} | ${g.selfPct} |`)
    md.push('')
    md.push('| top functions by self time | where | self % | incl. % |')
    md.push('|---|---|---:|---:|')
    for (const f of a.topSelf) md.push(`| \`${f.name}\` | ${f.where} | ${f.selfPct} | ${f.inclusivePct} |`)
    md.push('')
    md.push('| Mortar functions by inclusive time | where | self % | incl. % |')
    md.push('|---|---|---:|---:|')
    for (const f of a.mortarInclusive) md.push(`| \`${f.name}\` | ${f.where} | ${f.selfPct} | ${f.inclusivePct} |`)
    md.push('')
  }
}

/**
 * The sizes report: for each cell, Mortar's busy CPU per request, then one table of Mortar's
 * functions (inclusive µs per request) across the cells — what grows with the prompt.
 */
function renderSizes(): void {
  const perRequest: Record<string, { requests: number; busyUs: number; fns: Map<string, number> }> = {}
  const mortarInclusive: Record<string, { name: string; where: string }[]> = {}
  const topSelf: Record<string, { name: string; where: string; selfPct: number; inclusivePct: number }[]> = {}
  for (const [name, run] of Object.entries(runs)) {
    const a = analyze(run.file, run.window)
    const requests = Math.max(1, run.load.completed ?? 0)
    const busyUs = Math.round((a.busyS * 1e6) / requests)
    report[name] = { ...a, profile: relative(ROOT, run.file), window: run.window, load: run.load, busyUsPerRequest: busyUs }
    mortarInclusive[name] = a.mortarInclusive
    topSelf[name] = a.topSelf
    perRequest[name] = { requests, busyUs, fns: new Map(a.allFunctions.map((f) => [`${f.name} ${f.where}`, (f.inclusivePct / 100) * busyUs])) }
  }
  const names = Object.keys(perRequest)
  md.push('Each cell: Mortar alone under sequential JSON requests of one prompt shape and size (sweep.ts), for the given seconds after a warm-up. µs are CPU per request (busy samples ÷ requests).')
  md.push('')
  md.push(`| | ${names.join(' | ')} |`)
  md.push(`|---|${names.map(() => '---:').join('|')}|`)
  md.push(`| requests | ${names.map((n) => perRequest[n]!.requests).join(' | ')} |`)
  md.push(`| mean body | ${names.map((n) => `${Math.round((runs[n]!.load.bodyBytes ?? 0) / 102.4) / 10} KB`).join(' | ')} |`)
  md.push(`| busy µs per request | ${names.map((n) => perRequest[n]!.busyUs).join(' | ')} |`)
  const keys = new Set<string>()
  for (const n of names) for (const f of (mortarInclusive[n] ?? []).slice(0, 14)) keys.add(`${f.name} ${f.where}`)
  const rows = [...keys].map((k) => ({ k, values: names.map((n) => perRequest[n]!.fns.get(k) ?? 0) })).sort((x, y) => Math.max(...y.values) - Math.max(...x.values))
  for (const { k, values } of rows) md.push(`| \`${k.split(' ')[0]}\` ${k.split(' ').slice(1).join(' ')} | ${values.map((v) => Math.round(v)).join(' | ')} |`)
  md.push('')
  for (const n of names) {
    md.push(`### ${n}: top functions by self time`)
    md.push('')
    md.push('| function | where | self % | incl. % |')
    md.push('|---|---|---:|---:|')
    for (const f of (topSelf[n] ?? []).slice(0, 12)) md.push(`| \`${f.name}\` | ${f.where} | ${f.selfPct} | ${f.inclusivePct} |`)
    md.push('')
  }
}
if (runs.alloc) {
  const a = analyzeAllocations(runs.alloc.file, runs.alloc.load.completed ?? 0)
  report.alloc = { ...a, profile: relative(ROOT, runs.alloc.file), load: runs.alloc.load }
  md.push(`### Allocations under JSON load (${opts['json-concurrency']} clients)`)
  md.push('')
  md.push(
    `V8's sampling heap profiler, collected objects included: ${a.totalMb} MB allocated over ${runs.alloc.load.completed} requests, ` +
      `**${a.perRequestKb} KB per request**. Every byte is garbage the scavenger must sweep; the pauses it causes are the p99 tail.`,
  )
  md.push('')
  md.push('| allocated by origin | % | KB per request |')
  md.push('|---|---:|---:|')
  for (const g of a.groups.slice(0, 14)) md.push(`| ${g.group} | ${g.pct} | ${g.perRequestKb} |`)
  md.push('')
  md.push('| top allocating functions (self) | where | % | KB per request |')
  md.push('|---|---|---:|---:|')
  for (const f of a.top) md.push(`| \`${f.name}\` | ${f.where} | ${f.pct} | ${f.perRequestKb} |`)
  md.push('')
  md.push('| Mortar functions by allocations below them (inclusive) | where | % | KB per request |')
  md.push('|---|---|---:|---:|')
  for (const f of a.mortarInclusive) md.push(`| \`${f.name}\` | ${f.where} | ${f.pct} | ${f.perRequestKb} |`)
  md.push('')
}
for (const r of Object.values(report)) delete r.allFunctions
writeFileSync(join(HERE, 'results', `${REPORT}.json`), JSON.stringify(report, null, 2) + '\n')
writeFileSync(join(HERE, 'results', `${REPORT}.md`), md.join('\n') + '\n')
process.stdout.write(md.join('\n') + '\n')
log(`Wrote bench/gateway/results/${REPORT}.md and ${REPORT}.json; profiles in ${relative(ROOT, PROFILES)}/`)
process.exit(0)
