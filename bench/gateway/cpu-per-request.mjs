#!/usr/bin/env node
// CPU time per request at concurrency 1 — a steadier measure than latency on a noisy machine, and
// the one the c=1 "added latency" follows (at c=1 a request's added time is the contender's CPU).
//
//   node bench/gateway/cpu-per-request.mjs [--count 5000] [--rounds 3]
//
// Starts the fake model server, the bare proxy and Mortar (as run.mjs does), sends `count`
// sequential JSON requests to each per round, and reads each process's utime + stime from
// /proc/<pid>/stat before and after: µs of CPU per request (10 ms clock ticks, so use thousands
// of requests). Also prints the added p50 of each round. Needs `npm run build` first.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { direct, startBare, startMortar, startUpstream } from './contenders.mjs'
import { ensureMortarBuild, processTicks, runLoad, stopProcess } from './lib.mjs'

const { values: opts } = parseArgs({ options: { count: { type: 'string', default: '5000' }, rounds: { type: 'string', default: '3' } } })
const COUNT = Number(opts.count)
const ROUNDS = Number(opts.rounds)
const TICK_US = 10_000

ensureMortarBuild()
const logDir = mkdtempSync(join(tmpdir(), 'mortar-cpu-'))
const upstream = await startUpstream({ logDir, deltas: 64, intervalMs: 20 })
const contenders = { direct: direct(upstream), bare: await startBare(upstream, { logDir }), mortar: await startMortar(upstream, { logDir }) }
const ids = Object.keys(contenders)
const job = (c, extra) => ({ url: c.url, headers: c.headers, ...extra })
try {
  // Warm-up: JIT, connection pools.
  for (const id of ids) await runLoad(job(contenders[id], { kind: 'json-seq', concurrency: 4, warmup: 0, count: 2000 }))
  const rows = Object.fromEntries(ids.map((id) => [id, []]))
  for (let round = 0; round < ROUNDS; round++) {
    for (const id of ids) {
      const pid = contenders[id].proc.pid
      const before = processTicks(pid)
      const result = await runLoad(job(contenders[id], { kind: 'json-seq', concurrency: 1, warmup: 0, count: COUNT }))
      rows[id].push({ cpuUs: ((processTicks(pid) - before) * TICK_US) / result.completed, p50: result.latency.p50 })
    }
  }
  const median = (values) => values.slice().sort((a, b) => a - b)[Math.floor(values.length / 2)]
  const cpu = (id) => median(rows[id].map((r) => r.cpuUs))
  const p50 = (id) => median(rows[id].map((r) => r.p50))
  // Each figure is that process's own CPU: "direct" is the fake model server answering alone.
  console.log(`CPU per request at c=1 (median of ${ROUNDS} rounds of ${COUNT}), µs: fake server ${cpu('direct').toFixed(0)}, bare proxy ${cpu('bare').toFixed(0)}, Mortar ${cpu('mortar').toFixed(0)} (Mortar − bare ${(cpu('mortar') - cpu('bare')).toFixed(0)})`)
  console.log(`added p50 (ms): bare ${(p50('bare') - p50('direct')).toFixed(3)}, Mortar ${(p50('mortar') - p50('direct')).toFixed(3)}`)
} finally {
  for (const id of ['bare', 'mortar']) await stopProcess(contenders[id].proc)
  await stopProcess(upstream.proc)
}
