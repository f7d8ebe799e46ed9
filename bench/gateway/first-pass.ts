// A gateway's first requests, before capture's store has gone round its memory once: every run
// starts a fresh process (this build, another build, and the bare proxy, in alternating order) and
// sends it `count` sequential JSON requests of a sweep prompt, after a short warm-up. The other
// tools keep one process per contender for all their rounds, so after the first few hundred
// requests at 128 KB they measure a store whose pages are all resident; a short harness, and a
// gateway that has just started, meet the store's fresh memory instead (docs/benchmark.md, round
// twenty).
//
//   npx tsx bench/gateway/first-pass.ts --baseline OTHER/out/main/cli.js [--cells "stable 32 KB,growing 128 KB"] [--runs 4] [--count 250]
//
// Prints each run's p50 latency (ms) per contender and their median. Needs `npm run build` first.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startBare, startMortar, startUpstream } from './contenders'
import { ensureMortarBuild, runLoad, stopProcess } from './lib'
import { median } from './format'
import { cellName, cellsNamed } from './sweep'
import type { Contender } from './types'

const { values: opts } = parseArgs({
  options: {
    baseline: { type: 'string' },
    cells: { type: 'string', default: 'stable 32 KB,stable 128 KB,growing 128 KB' },
    runs: { type: 'string', default: '4' },
    count: { type: 'string', default: '250' },
  },
})
const cells = cellsNamed(opts.cells)
const cli = ensureMortarBuild()
const logDir = mkdtempSync(join(tmpdir(), 'mortar-first-pass-'))
console.log(`logs: ${logDir}`)
const upstream = await startUpstream({ logDir, deltas: 8, intervalMs: 5 })
const start: Record<string, () => Promise<Contender>> = {
  mortar: () => startMortar(upstream, { logDir, cli }),
  bare: () => startBare(upstream, { logDir }),
}
if (opts.baseline !== undefined) {
  const baseline = opts.baseline
  start['mortar-baseline'] = () => startMortar(upstream, { logDir, cli: baseline, name: 'mortar-baseline', id: 'mortar-baseline' })
}
const ids = Object.keys(start)
let first = 0
try {
  for (const cell of cells) {
    const p50s: Record<string, number[]> = Object.fromEntries(ids.map((id) => [id, []]))
    for (let run = 0; run < Number(opts.runs); run++) {
      // Alternating order, so that the machine's drift falls on each contender alike.
      for (const id of run % 2 === 0 ? ids : [...ids].reverse()) {
        const contender = await start[id]!()
        try {
          const result = await runLoad({ kind: 'json-seq', url: contender.url, headers: contender.headers, concurrency: 1, warmup: 20, count: Number(opts.count), prompt: { shape: cell.shape, bytes: cell.bytes }, first: (first += 1_000_000) })
          p50s[id]!.push(result.latency.p50)
        } finally {
          await stopProcess(contender.proc)
        }
      }
    }
    console.log(`${cellName(cell)}: p50 of each run's first ${opts.count} requests after 20 (ms)`)
    for (const id of ids) console.log(`  ${id.padEnd(16)} median ${(median(p50s[id]!) ?? NaN).toFixed(3)}  runs ${p50s[id]!.map((p) => p.toFixed(3)).join(' ')}`)
  }
} finally {
  await stopProcess(upstream.proc)
}
