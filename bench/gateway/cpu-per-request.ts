// CPU time per request at concurrency 1 — a steadier measure than latency on a noisy machine, and
// the one the c=1 "added latency" follows (at c=1 a request's added time is the contender's CPU).
//
//   npx tsx bench/gateway/cpu-per-request.ts [--count 5000] [--rounds 3] [--sizes] [--cells LIST]
//                                            [--api chat|responses|messages] [--baseline CLI] [--capture-off] [--gc] [--survivors] [--node-args=ARGS]
//                                            [--pair [--bare-apart]] [--witness] [--think-ms MS]
//
// Starts the fake model server, the bare proxy and Mortar (as run.ts does), sends `count`
// sequential JSON requests to each per round, and reads each process's utime + stime from
// /proc/<pid>/stat before and after: µs of CPU per request (10 ms clock ticks, so use thousands
// of requests). Also prints the added p50 of each round. Needs `npm run build` first.
//   --sizes         every prompt of the sweep (sweep.ts) instead of the main table's request
//   --cells LIST    with --sizes, only these cells, by name, comma-separated ("stable 32 KB,growing 128 KB")
//   --api API       the cells' prompts sent to this API (chat by default), as the sweep sends them:
//                   for Messages, the bare proxy carries the same conversation as chat completions
//   --baseline CLI  another build's out/main/cli.js as `mortar-baseline`, measured in the same
//                   rounds, alternating with Mortar: the ratio of the two is a before/after that
//                   the machine's load affects alike
//   --baseline-node-args=ARGS  with --baseline, Node flags for the baseline's process only (a
//                   before/after of a flag: `--baseline out/main/cli.js --baseline-node-args=--…`)
//   --capture-off   the same build with `--capture off` as `mortar-capture-off`, in the same
//                   rounds: what traffic capture (memory, the default) costs per request
//   --reference     two reference gateways of reference-proxies.ts, each in its own process, in the
//                   same rounds: bodies read whole with node:http both ways (`buffered`), and the
//                   same with the model server's leg written and read by hand (`raw-client`) —
//                   what a process of its own and Node's HTTP client cost before any gateway work
//   --witness       the independent harness's request (system + user ~340 B, max_tokens 16) instead
//   --pair          the independent harness's topology (pair.ts): the fake server and the bare proxy in
//                   one process (whose CPU is then both), every Mortar forwarding to that fake server
//   --bare-apart    with --pair, the same bare proxy also in a process of its own (`bare-apart`), forwarding
//                   to that fake server as Mortar does: the floor with the two hops between processes that
//                   Mortar cannot avoid, against the floor without them
//   --gc            each Mortar's garbage collections during the cell's jobs (V8's --trace-gc-nvp,
//                   read back from its log; gc-trace.ts): young collections (scavenges) and their pauses, the
//                   share of the young generation's allocations they found alive (copied or promoted
//                   to old space: what makes a scavenge cost), and full collections (mark-compact)
//   --survivors     where the objects that scavenges find alive were allocated, per Mortar, over the
//                   whole run (warm-up included): V8's sampling heap profiler, keeping the samples of
//                   objects no young collection freed (survivors-preload.mjs); the allocation stacks
//                   holding the most bytes, and with --capture-off those that capture memory adds
//   --node-args=ARGS Node flags for every Mortar process, space-separated (--node-args=--cpu-prof): their
//                   output goes to each process's log in the run's log directory, printed at the start
//   --think-ms MS   a pause of MS after each reply before the next request (0: none), as a person or
//                   an agent leaves between turns: each request then finds the caches cold, as real
//                   traffic does, and costs more CPU in every contender
// At the end, each Mortar's CPU ticks thread by thread (the main thread, then V8's and libuv's workers).
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { direct, startBare, startMortar, startPair, startReference, startUpstream } from './contenders'
import { ensureMortarBuild, processTicks, runLoad, stopProcess } from './lib'
import { addGcTrace, GC_TRACE_NODE_ARGS, gcLine, type GcTotals } from './gc-trace'
import { apiOption, cellName, cellsNamed, routeOf } from './sweep'
import type { Contender, Kind, LoadJob, Prompt } from './types'

const { values: opts } = parseArgs({
  options: {
    count: { type: 'string', default: '5000' },
    rounds: { type: 'string', default: '3' },
    sizes: { type: 'boolean', default: false },
    baseline: { type: 'string' },
    'baseline-node-args': { type: 'string', default: '' },
    'capture-off': { type: 'boolean', default: false },
    reference: { type: 'boolean', default: false },
    cells: { type: 'string' },
    api: { type: 'string', default: 'chat' },
    'node-args': { type: 'string', default: '' },
    gc: { type: 'boolean', default: false },
    survivors: { type: 'boolean', default: false },
    pair: { type: 'boolean', default: false },
    witness: { type: 'boolean', default: false },
    'bare-apart': { type: 'boolean', default: false },
    'think-ms': { type: 'string', default: '0' },
  },
})
const COUNT = Number(opts.count)
const ROUNDS = Number(opts.rounds)
const TICK_US = 10_000
const API = apiOption(opts.api)

ensureMortarBuild()
const logDir = mkdtempSync(join(tmpdir(), 'mortar-cpu-'))
const nodeArgs = [
  ...opts['node-args'].split(' ').filter((arg) => arg !== ''),
  ...(opts.gc ? GC_TRACE_NODE_ARGS : []),
  ...(opts.survivors ? ['--import', join(dirname(fileURLToPath(import.meta.url)), 'survivors-preload.mjs')] : []),
]
// The preload writes its profile here (each child gets this process's environment).
if (opts.survivors) process.env.MORTAR_SURVIVORS_DIR = logDir
console.log(`logs: ${logDir}`)
const pair = opts.pair ? await startPair({ logDir, deltas: 64, intervalMs: 20 }) : undefined
const upstream = pair?.upstream ?? (await startUpstream({ logDir, deltas: 64, intervalMs: 20 }))
const contenders: Record<string, Contender> = {
  direct: pair ? { ...pair.direct, id: 'direct' } : direct(upstream),
  bare: pair ? { ...pair.bare, id: 'bare' } : await startBare(upstream, { logDir }),
  mortar: await startMortar(upstream, { logDir, nodeArgs }),
}
const baselineNodeArgs = [...nodeArgs, ...opts['baseline-node-args'].split(' ').filter((arg) => arg !== '')]
if (opts.baseline) contenders['mortar-baseline'] = await startMortar(upstream, { logDir, nodeArgs: baselineNodeArgs, name: 'mortar-baseline', id: 'mortar-baseline', cli: opts.baseline })
if (opts['capture-off']) {
  contenders['mortar-capture-off'] = await startMortar(upstream, { logDir, nodeArgs, name: 'mortar-capture-off', id: 'mortar-capture-off', serveArgs: ['--capture', 'off'] })
}
const REFERENCES = ['buffered', 'raw-client', 'undici'] as const
if (opts.reference) for (const kind of REFERENCES) contenders[`reference-${kind}`] = await startReference(upstream, kind, { logDir })
if (opts['bare-apart']) {
  if (!pair) throw new Error('--bare-apart goes with --pair')
  contenders['bare-apart'] = { ...(await startBare(upstream, { logDir })), id: 'bare-apart' }
}
const ids = Object.keys(contenders)
const cells: { name: string; prompt: Prompt | undefined }[] = opts.sizes
  ? cellsNamed(opts.cells).map((cell) => ({ name: cellName(cell), prompt: { shape: cell.shape, bytes: cell.bytes } }))
  : opts.witness
    ? [{ name: 'witness', prompt: { shape: 'witness' } }]
    : [{ name: 'default', prompt: undefined }]
let first = 0
const job = <K extends Kind>(c: Contender, extra: Omit<LoadJob, 'url'> & { kind: K }): LoadJob & { kind: K } => ({ ...routeOf(c, API), headers: c.headers, first: (first += 1_000_000), ...extra })
const median = (values: number[]): number => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN
const contender = (id: string): Contender => contenders[id]!
try {
  // Warm-up: JIT, connection pools.
  for (const id of ids) await runLoad(job(contender(id), { kind: 'json-seq', concurrency: 4, warmup: 0, count: 2000 }))
  for (const cell of cells) {
    const rows: Record<string, { cpuUs: number; p50: number }[]> = Object.fromEntries(ids.map((id) => [id, []]))
    const gc: Record<string, GcTotals> = {}
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate the order, so that neither build always runs right after the other.
      const order = round % 2 === 0 ? ids : [...ids].reverse()
      for (const id of order) {
        const pid = contender(id).proc.pid
        const warm = Math.min(200, Math.round(COUNT / 10))
        const { logFile } = contender(id).proc
        const logAt = statSync(logFile).size
        const before = processTicks(pid)
        const result = await runLoad(job(contender(id), { kind: 'json-seq', concurrency: 1, warmup: warm, count: COUNT, prompt: cell.prompt, thinkMs: Number(opts['think-ms']) }))
        rows[id]!.push({ cpuUs: ((processTicks(pid) - before) * TICK_US) / (result.completed + warm), p50: result.latency.p50 })
        if (opts.gc && id.startsWith('mortar')) gc[id] = addGcTrace(gc[id], readFileSync(logFile).subarray(logAt).toString('utf8'))
      }
    }
    const cpu = (id: string): number => median((rows[id] ?? []).map((r) => r.cpuUs))
    const p50 = (id: string): number => median((rows[id] ?? []).map((r) => r.p50))
    // Each figure is that process's own CPU: "direct" is the fake model server answering alone.
    let line = `${API === 'chat' ? '' : `${API}: `}${cell.name}: CPU per request at c=1 (median of ${ROUNDS} rounds of ${COUNT}), µs: fake server ${cpu('direct').toFixed(0)}, bare proxy ${cpu('bare').toFixed(0)}, Mortar ${cpu('mortar').toFixed(0)} (Mortar ÷ bare ${(cpu('mortar') / cpu('bare')).toFixed(2)})`
    if (opts.baseline) {
      const ratios = (rows.mortar ?? []).map((r, i) => r.cpuUs / (rows['mortar-baseline']?.[i]?.cpuUs ?? NaN))
      line += `; baseline ${cpu('mortar-baseline').toFixed(0)} (Mortar ÷ baseline, median of the rounds' ratios: ${median(ratios).toFixed(2)})`
    }
    if (opts['capture-off']) {
      const ratios = (rows.mortar ?? []).map((r, i) => r.cpuUs / (rows['mortar-capture-off']?.[i]?.cpuUs ?? NaN))
      line += `; capture off ${cpu('mortar-capture-off').toFixed(0)} (capture memory ÷ off, median of the rounds' ratios: ${median(ratios).toFixed(2)})`
    }
    if (opts.reference) line += REFERENCES.map((kind) => `; reference ${kind} ${cpu(`reference-${kind}`).toFixed(0)}`).join('')
    if (opts['bare-apart']) line += `; bare proxy in a process of its own ${cpu('bare-apart').toFixed(0)}`
    console.log(line)
    for (const [id, totals] of Object.entries(gc)) console.log(`  ${id} GC: ${gcLine(totals)}`)
    // Each round's figures, for judging how much the medians can be trusted on a noisy machine.
    for (const id of ids) console.log(`  ${id} rounds: p50 ${(rows[id] ?? []).map((r) => r.p50.toFixed(3)).join(' ')}; CPU µs ${(rows[id] ?? []).map((r) => r.cpuUs.toFixed(0)).join(' ')}`)
    console.log(`  added p50 (ms): bare ${(p50('bare') - p50('direct')).toFixed(3)}, Mortar ${(p50('mortar') - p50('direct')).toFixed(3)}${opts.baseline ? `, baseline ${(p50('mortar-baseline') - p50('direct')).toFixed(3)}` : ''}${opts['capture-off'] ? `, capture off ${(p50('mortar-capture-off') - p50('direct')).toFixed(3)}` : ''}${opts.reference ? REFERENCES.map((kind) => `, reference ${kind} ${(p50(`reference-${kind}`) - p50('direct')).toFixed(3)}`).join('') : ''}${opts['bare-apart'] ? `, bare proxy in a process of its own ${(p50('bare-apart') - p50('direct')).toFixed(3)}` : ''}`)
  }
  if (opts.survivors) await printSurvivors(ids.filter((i) => i.startsWith('mortar')))
  // Where each Mortar's CPU went, thread by thread (the main thread; V8's workers, which run the
  // garbage collector's parallel and concurrent parts; libuv's pool), over the whole run.
  for (const id of ids.filter((i) => i.startsWith('mortar'))) console.log(`${id} threads (ticks over the whole run): ${threadTicks(contender(id).proc.pid)}`)
} finally {
  for (const id of ids.filter((i) => i !== 'direct' && !(pair && i === 'bare'))) await stopProcess(contender(id).proc)
  await stopProcess(upstream.proc)
}

function threadTicks(pid: number): string {
  const threads: string[] = []
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    const ticks = Number(fields[11]) + Number(fields[12])
    if (ticks > 0) threads.push(`${tid === String(pid) ? 'main' : tid} ${ticks}`)
  }
  return threads.join(', ')
}

interface ProfileNode {
  callFrame: { functionName: string; url: string; lineNumber: number }
  selfSize: number
  children: ProfileNode[]
}

/** Bytes by allocation stack (its innermost four frames) in one survivors profile. */
function survivorsBySite(file: string): Map<string, number> {
  const head = (JSON.parse(readFileSync(file, 'utf8')) as { head: ProfileNode }).head
  const sites = new Map<string, number>()
  const walk = (node: ProfileNode, stack: string[]): void => {
    const { functionName, url, lineNumber } = node.callFrame
    const frames = [`${functionName === '' ? '(anonymous)' : functionName} ${url.split('/').pop() ?? ''}:${lineNumber + 1}`, ...stack].slice(0, 4)
    if (node.selfSize > 0) sites.set(frames.join(' < '), (sites.get(frames.join(' < ')) ?? 0) + node.selfSize)
    for (const child of node.children) walk(child, frames)
  }
  walk(head, [])
  return sites
}

async function printSurvivors(mortars: string[]): Promise<void> {
  const bySite = new Map<string, Map<string, number>>()
  for (const id of mortars) {
    const { pid } = contender(id).proc
    const file = join(logDir, `${pid}.heapprofile`)
    process.kill(pid, 'SIGUSR2')
    for (let waited = 0; !existsSync(file) && waited < 15_000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100))
    // The profile is written in one call; give it a moment to be complete.
    await new Promise((resolve) => setTimeout(resolve, 500))
    if (existsSync(file)) bySite.set(id, survivorsBySite(file))
  }
  const mb = (bytes: number) => (bytes / 1e6).toFixed(2)
  const total = (sites: Map<string, number>) => [...sites.values()].reduce((a, b) => a + b, 0)
  for (const [id, sites] of bySite) {
    console.log(`${id}: ${mb(total(sites))} MB of sampled allocations outlived a scavenge; the stacks holding most:`)
    for (const [site, bytes] of [...sites].sort((a, b) => b[1] - a[1]).slice(0, 12)) console.log(`  ${mb(bytes).padStart(7)}  ${site}`)
  }
  const memory = bySite.get('mortar')
  const off = bySite.get('mortar-capture-off')
  if (memory === undefined || off === undefined) return
  console.log(`capture memory − off, by stack (MB; ${mb(total(memory) - total(off))} in all):`)
  const added = [...memory].map(([site, bytes]): [string, number] => [site, bytes - (off.get(site) ?? 0)]).sort((a, b) => b[1] - a[1])
  for (const [site, bytes] of added.slice(0, 16)) console.log(`  ${mb(bytes).padStart(7)}  ${site}`)
}
