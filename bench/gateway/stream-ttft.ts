// Streams one at a time (c=1): the time to the first content delta and the gap between deltas that
// Mortar adds, against the bare proxy, in alternating rounds — the issue's streaming goals (added
// TTFT ≤ 1 ms, added inter-chunk p99 ≤ 1 ms) at the main table's request or a sweep prompt.
//
//   npx tsx bench/gateway/stream-ttft.ts [--deltas 8] [--interval-ms 5] [--seconds 4] [--rounds 5]
//                                        [--cells "stable 128 KB"] [--baseline OTHER/out/main/cli.js] [--capture-off] [--node-args=ARGS]
//                                        [--baseline-node-args=ARGS] [--api chat|responses|messages] [--think-ms 0] [--gc]
//
// The fake model server sends `deltas` content deltas `interval-ms` apart (the first at once), so a
// stream is short and many fit in a round. Each round runs every contender for `seconds`, in
// alternating order; the figures are medians of the rounds' p50 (TTFT) and p99 (inter-chunk), and
// each round's TTFT p50 follows, per contender.
// --capture-off: the same build with `--capture off` as `mortar-capture-off`, in the same rounds.
// --node-args: Node flags for every Mortar process, space-separated, as cpu-per-request.ts takes them;
// --baseline-node-args: with --baseline, flags for the baseline's process only (one build with and
// without a flag: `--baseline out/main/cli.js --baseline-node-args=--…`).
// --api: the streams sent to this API in its shape (prompts.ts), as cpu-per-request.ts sends them;
// a Responses stream's first content delta comes after its response.created and in_progress events.
// --think-ms: a pause after each stream before the next, as a user or an agent leaves between turns.
// Without one, the next request reaches the fake server while it is still busy with the stream it
// just ended, and writing a 128 KB body to it takes longer then (docs/benchmark.md, round twenty).
// --gc: each Mortar's garbage collections during the cell's rounds (gc-trace.ts, as cpu-per-request.ts
// prints them): a young collection that falls between two deltas is the gap that makes the p99.
// Needs `npm run build` first.
import { mkdtempSync, readFileSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { direct, startBare, startMortar, startUpstream } from './contenders'
import { ensureMortarBuild, runLoad, stopProcess } from './lib'
import { addGcTrace, GC_TRACE_NODE_ARGS, gcLine, type GcTotals } from './gc-trace'
import { apiOption, cellName, cellsNamed, routeOf } from './sweep'
import type { Contender, Prompt, StreamResult } from './types'

const { values: opts } = parseArgs({
  options: {
    deltas: { type: 'string', default: '8' },
    'interval-ms': { type: 'string', default: '5' },
    'think-ms': { type: 'string', default: '0' },
    seconds: { type: 'string', default: '4' },
    rounds: { type: 'string', default: '5' },
    cells: { type: 'string' },
    baseline: { type: 'string' },
    'capture-off': { type: 'boolean', default: false },
    'node-args': { type: 'string', default: '' },
    'baseline-node-args': { type: 'string', default: '' },
    api: { type: 'string', default: 'chat' },
    gc: { type: 'boolean', default: false },
  },
})
const API = apiOption(opts.api)
const deltas = Number(opts.deltas)
const intervalMs = Number(opts['interval-ms'])
const thinkMs = Number(opts['think-ms'])
const cells: { name: string; prompt: Prompt | undefined }[] =
  opts.cells === undefined
    ? [{ name: 'default', prompt: undefined }]
    : cellsNamed(opts.cells).map((cell) => ({ name: cellName(cell), prompt: { shape: cell.shape, bytes: cell.bytes } }))

ensureMortarBuild()
const logDir = mkdtempSync(join(tmpdir(), 'mortar-stream-ttft-'))
console.log(`logs: ${logDir}`)
const nodeArgs = [...opts['node-args'].split(' ').filter((arg) => arg !== ''), ...(opts.gc ? GC_TRACE_NODE_ARGS : [])]
const upstream = await startUpstream({ logDir, deltas, intervalMs })
const contenders: Record<string, Contender> = { direct: direct(upstream), bare: await startBare(upstream, { logDir }), mortar: await startMortar(upstream, { logDir, nodeArgs }) }
if (opts['capture-off']) contenders['mortar-capture-off'] = await startMortar(upstream, { logDir, nodeArgs, name: 'mortar-capture-off', id: 'mortar-capture-off', serveArgs: ['--capture', 'off'] })
if (opts.baseline !== undefined) contenders['mortar-baseline'] = await startMortar(upstream, {
    logDir,
    nodeArgs: [...nodeArgs, ...opts['baseline-node-args'].split(' ').filter((arg) => arg !== '')],
    name: 'mortar-baseline',
    id: 'mortar-baseline',
    cli: opts.baseline,
  })
const ids = Object.keys(contenders)
const median = (values: number[]): number => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? NaN
let first = 0
try {
  // Warm-up: JIT and connection pools, with JSON requests and a few streams.
  for (const id of ids) {
    const c = contenders[id]!
    await runLoad({ kind: 'json-seq', ...routeOf(c, API), headers: c.headers, concurrency: 2, warmup: 0, count: 1000, first: (first += 1_000_000) })
    await runLoad({ kind: 'stream', ...routeOf(c, API), headers: c.headers, concurrency: 1, durationMs: 1000, rampMs: 0, deltas, intervalMs, first: (first += 1_000_000) })
  }
  for (const cell of cells) {
    const rows: Record<string, StreamResult[]> = Object.fromEntries(ids.map((id) => [id, []]))
    const gc: Record<string, GcTotals> = {}
    for (let round = 0; round < Number(opts.rounds); round++) {
      for (const id of round % 2 === 0 ? ids : [...ids].reverse()) {
        const c = contenders[id]!
        const durationMs = Number(opts.seconds) * 1000
        const traced = opts.gc && id.startsWith('mortar') ? c.proc.logFile : undefined
        const logAt = traced === undefined ? 0 : statSync(traced).size
        rows[id]!.push(await runLoad({ kind: 'stream', ...routeOf(c, API), headers: c.headers, prompt: cell.prompt, concurrency: 1, durationMs, rampMs: 0, deltas, intervalMs, thinkMs, first: (first += 1_000_000) }))
        if (traced !== undefined) gc[id] = addGcTrace(gc[id], readFileSync(traced).subarray(logAt).toString('utf8'))
      }
    }
    const ttft = (id: string) => median(rows[id]!.map((r) => r.ttft.p50))
    const gap = (id: string) => median(rows[id]!.map((r) => r.interChunk.p99))
    console.log(`${API === 'chat' ? '' : `${API}: `}${cell.name}: ${deltas} deltas ${intervalMs} ms apart, c=1${thinkMs > 0 ? `, ${thinkMs} ms between streams` : ''}, median of ${opts.rounds} rounds (ms)`)
    for (const id of ids) {
      const lost = rows[id]!.reduce((sum, r) => sum + r.lostStreams, 0)
      const ok = rows[id]!.reduce((sum, r) => sum + r.streamsOk, 0)
      console.log(
        `  ${id.padEnd(16)} TTFT p50 ${ttft(id).toFixed(3)} (added ${(ttft(id) - ttft('direct')).toFixed(3)}), inter-chunk p99 ${gap(id).toFixed(3)} (added ${(gap(id) - gap('direct')).toFixed(3)}); streams ok ${ok}, lost ${lost}`,
      )
    }
    // Each round's figure, in order: the spread a difference between two contenders has to exceed
    // (two processes of one build differed by 0.55 ms of TTFT over 9 rounds).
    for (const id of ids) console.log(`  ${id}: TTFT p50 of each round ${rows[id]!.map((r) => r.ttft.p50.toFixed(2)).join(' ')}`)
    for (const [id, totals] of Object.entries(gc)) console.log(`  ${id} GC: ${gcLine(totals)}`)
  }
} finally {
  // `direct` is the fake server itself, stopped last.
  for (const [id, c] of Object.entries(contenders)) if (id !== 'direct') await stopProcess(c.proc)
  await stopProcess(upstream.proc)
}
