import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { LABELS } from './contenders'
import { median, ms, mb, ratio, mark } from './format'
import { ROOT } from './lib'
import { renderSweep, renderWitness, type Target } from './report-sweep'
import type { Results, Rss, StreamResult } from './types'

// Turns a results object (run.ts) into the markdown tables printed and put in docs/benchmark.md.
// "Added" is always contender − direct, from the same run; ratios compare added numbers.

/** Derived numbers: what the tables show and what the targets are judged on. */
type N = number | undefined
interface SeqRow {
  p50: N
  p99: N
  addedP50: N
  addedP99: N
}
interface RateRow extends SeqRow {
  achieved: number
  held: boolean | undefined
}
interface StreamRow {
  ttftP50: N
  ttftP99: N
  gapP50: N
  gapP99: N
  latenessP99: N
  addedTtftP50: N
  addedTtftP99: N
  addedGapP50: N
  addedGapP99: N
}
export interface Derived {
  seq: Record<string, SeqRow>
  rates: Record<string, Record<string, RateRow>>
  held: Record<string, { rate: N; atCeiling: boolean }>
  stream: Record<string, StreamRow>
  levels: Record<string, Record<string, StreamResult>>
  mostStreams: Record<string, N>
  rss: Record<string, Rss>
}

export function derive(results: Results): Derived {
  const { seq, rates, streamLight, streamLevels, rss, contenders } = results
  const d: Derived = { seq: {}, rates: {}, held: {}, stream: {}, levels: {}, mostStreams: {}, rss: {} }
  for (const [id, rounds] of Object.entries(seq)) {
    const direct = seq.direct ?? []
    d.seq[id] = {
      p50: median(rounds.map((r) => r.latency.p50)),
      p99: median(rounds.map((r) => r.latency.p99)),
      addedP50: id === 'direct' ? undefined : median(rounds.map((r, i) => r.latency.p50 - (direct[i]?.latency.p50 ?? NaN))),
      addedP99: id === 'direct' ? undefined : median(rounds.map((r, i) => r.latency.p99 - (direct[i]?.latency.p99 ?? NaN))),
    }
  }
  for (const [rate, byId] of Object.entries(rates)) {
    const perId: Record<string, RateRow> = {}
    d.rates[rate] = perId
    for (const [id, r] of Object.entries(byId)) {
      perId[id] = {
        p50: r.latency.p50,
        p99: r.latency.p99,
        addedP50: id === 'direct' ? undefined : r.latency.p50 - (byId.direct?.latency.p50 ?? NaN),
        addedP99: id === 'direct' ? undefined : r.latency.p99 - (byId.direct?.latency.p99 ?? NaN),
        achieved: r.achievedRate,
        held: r.held,
      }
    }
  }
  const sortedRates = Object.keys(rates).map(Number).sort((a, b) => a - b)
  const top = sortedRates.at(-1)
  for (const id of contenders) {
    let best: number | undefined
    for (const rate of sortedRates) {
      const r = rates[rate]?.[id]
      if (r === undefined || !r.held) break
      best = rate
    }
    // Held at the last rate the harness ran: the contender might hold more than the harness can send.
    d.held[id] = { rate: best, atCeiling: best !== undefined && best === top && rates[top]?.direct?.held !== false }
  }
  // Streams under light load: medians over the rounds; "added" pairs each round with direct's.
  const dl = streamLight.direct ?? []
  const med = (rounds: StreamResult[], get: (r: StreamResult) => number): N => median(rounds.map(get))
  const added = (rounds: StreamResult[], get: (r: StreamResult) => number): N => median(rounds.map((r, i) => (dl[i] ? get(r) - get(dl[i]) : undefined)))
  for (const [id, rounds] of Object.entries(streamLight)) {
    d.stream[id] = {
      ttftP50: med(rounds, (r) => r.ttft.p50),
      ttftP99: med(rounds, (r) => r.ttft.p99),
      gapP50: med(rounds, (r) => r.interChunk.p50),
      gapP99: med(rounds, (r) => r.interChunk.p99),
      latenessP99: med(rounds, (r) => r.lateness.p99),
      addedTtftP50: id === 'direct' ? undefined : added(rounds, (r) => r.ttft.p50),
      addedTtftP99: id === 'direct' ? undefined : added(rounds, (r) => r.ttft.p99),
      addedGapP50: id === 'direct' ? undefined : added(rounds, (r) => r.interChunk.p50),
      addedGapP99: id === 'direct' ? undefined : added(rounds, (r) => r.interChunk.p99),
    }
  }
  const levels = Object.keys(streamLevels).map(Number).sort((a, b) => a - b)
  for (const id of contenders) {
    let best: number | undefined
    for (const level of levels) if (streamLevels[level]?.[id]?.held) best = level
    d.mostStreams[id] = best
  }
  d.levels = streamLevels
  d.rss = rss
  return d
}

export function targets(results: Results, d: Derived = derive(results)): Target[] {
  const m = d.seq.mortar
  const b = d.seq.bare
  const p = d.seq.portkey
  const s = d.stream.mortar
  const top = Object.keys(results.streamLevels).map(Number).sort((a, b) => a - b).at(-1)
  const at1000 = results.streamLevels[1000]?.mortar
  const le = (a: N, b: N): boolean => a !== undefined && b !== undefined && a <= b
  const list: Target[] = [
    {
      target: "Mortar's added p50 ≤ 1.5 × the bare proxy's (JSON, c=1)",
      value: m && b ? `${ms(m.addedP50)} ms vs ${ms(b.addedP50)} ms → ${ratio(m.addedP50, b.addedP50)}` : '—',
      met: m && b ? le(m.addedP50, 1.5 * (b.addedP50 ?? NaN)) : undefined,
    },
    {
      target: "Mortar's added p50 ≤ 0.25 × Portkey's (JSON, c=1)",
      value: m && p ? `${ms(m.addedP50)} ms vs ${ms(p.addedP50)} ms → ${ratio(m.addedP50, p.addedP50)}` : '—',
      met: m && p ? le(m.addedP50, 0.25 * (p.addedP50 ?? NaN)) : undefined,
    },
    {
      target: "Mortar's added p99 ≤ 2 × the bare proxy's (JSON, c=1)",
      value: m && b ? `${ms(m.addedP99)} ms vs ${ms(b.addedP99)} ms → ${ratio(m.addedP99, b.addedP99)}` : '—',
      met: m && b ? le(m.addedP99, 2 * Math.max(b.addedP99 ?? NaN, 0)) : undefined,
    },
    {
      target: 'Streaming: added TTFT ≤ 1 ms (p50; p99 shown)',
      value: s ? `p50 ${ms(s.addedTtftP50)} ms, p99 ${ms(s.addedTtftP99)} ms` : '—',
      met: s ? le(s.addedTtftP50, 1) : undefined,
    },
    {
      target: 'Streaming: added inter-chunk p99 ≤ 1 ms',
      value: s ? `${ms(s.addedGapP99)} ms` : '—',
      met: s ? le(s.addedGapP99, 1) : undefined,
    },
    {
      target: '1,000 concurrent streams: RSS ≤ 250 MB, no frame lost',
      value: at1000
        ? `RSS peak ${mb(at1000.rssPeakMb)} MB; ${at1000.lostStreams} of ${at1000.streams} streams lost frames; ${at1000.lateFrames} of ${at1000.frames} deltas late (> ${results.meta.settings.lateMs} ms)`
        : top ? `not run (largest level ${top})` : '—',
      met: at1000 ? le(at1000.rssPeakMb, 250) && at1000.lostStreams === 0 : undefined,
    },
  ]
  return list
}

export function renderMarkdown(results: Results): string {
  const d = derive(results)
  const { meta, contenders } = results
  const others = contenders.filter((id) => id !== 'direct')
  const label = LABELS
  const has = (id: string): boolean => contenders.includes(id)
  const lines: string[] = []
  const m = meta.machine
  lines.push(`Run ${meta.date} (${meta.mode}, ${meta.durationS} s): \`${meta.command}\``)
  lines.push('')
  lines.push(
    `Machine: ${m.nproc} cores (${m.cpuModel}), ${m.memoryGb} GB, ${m.platform}, Node ${m.node}. ` +
      `Mortar ${m.mortar.commit}${m.mortar.srcModifiedSinceCommit ? ' + uncommitted src changes' : ''} (build ${m.mortar.build}); ` +
      `Portkey @portkey-ai/gateway ${m.portkey.version} (@hono/node-server ${m.portkey.honoNodeServer}, hono ${m.portkey.hono}) on the same Node` +
      (meta.portkeyListening ? `, listening on ${meta.portkeyListening.join(', ')}` : '') +
      `; autocannon ${m.autocannon}.`,
  )
  const foreign: number[] = []
  const walk = (v: unknown): void => {
    if (v && typeof v === 'object') {
      const { foreignCores } = v as { foreignCores?: unknown }
      if (typeof foreignCores === 'number') foreign.push(foreignCores)
      for (const x of Object.values(v)) walk(x)
    }
  }
  walk({ seq: results.seq, rates: results.rates, throughput: results.throughput, streamLight: results.streamLight, streamLevels: results.streamLevels, witness: results.witness, sweep: results.sweep })
  if (foreign.length) {
    const over = foreign.filter((f) => f > (meta.foreignCpuLimit ?? 0.25)).length
    lines.push(
      `Other processes on the machine used up to ${Math.max(...foreign).toFixed(2)} cores during a kept job (median ${(median(foreign) ?? 0).toFixed(2)}); ` +
        `${meta.retried?.length ?? 0} jobs were measured again because others used more than ${meta.foreignCpuLimit ?? 0.25} cores, and ${over} kept jobs still exceed it.`,
    )
  }
  for (const [id, note] of Object.entries(meta.notes ?? {})) lines.push(`\n**${label[id]} failed verification:** ${note}`)
  lines.push('')
  if (!((results.seq.direct?.length ?? 0) > 0)) {
    // Only the witness and sweep sections ran (--sections).
    lines.push(...renderWitness(results), ...renderSweep(results))
    return lines.join('\n')
  }

  // ---- summary with ratios ----
  const cols = others.map((id) => label[id])
  const ratioCols: [string, string, string][] = []
  if (has('mortar') && has('bare')) ratioCols.push(['Mortar ÷ floor', 'mortar', 'bare'])
  if (has('mortar') && has('portkey')) ratioCols.push(['Mortar ÷ Portkey', 'mortar', 'portkey'])
  if (has('mortar') && has('mortar-capture-off')) ratioCols.push(['capture memory ÷ off', 'mortar', 'mortar-capture-off'])
  if (has('mortar') && has('mortar-baseline')) ratioCols.push(['Mortar ÷ baseline build', 'mortar', 'mortar-baseline'])
  lines.push('**Added latency and capacity** (added = contender − direct in the same run; ms unless stated)')
  lines.push('')
  lines.push(`| measure | ${cols.join(' | ')} | ${ratioCols.map((r) => r[0]).join(' | ')} |`)
  lines.push(`|---|${others.map(() => '---:').join('|')}|${ratioCols.map(() => '---:').join('|')}|`)
  const row = <V,>(name: string, get: (id: string) => V, { showRatio = true, fmt = ms as (v: V) => string }: { showRatio?: boolean; fmt?: (v: V) => string } = {}): void => {
    const vals: Record<string, V> = Object.fromEntries(others.map((id) => [id, get(id)]))
    const ratios = ratioCols.map(([, a, b]) => (showRatio ? ratio(vals[a] as N, vals[b] as N) : ''))
    lines.push(`| ${name} | ${others.map((id) => fmt(vals[id] as V)).join(' | ')} | ${ratios.join(' | ')} |`)
  }
  row('JSON, 1 client: added p50', (id) => d.seq[id]?.addedP50)
  row('JSON, 1 client: added p99', (id) => d.seq[id]?.addedP99)
  for (const rate of meta.settings.fixedRates) {
    if (!d.rates[rate]) continue
    row(`JSON, ${rate} req/s: added p50`, (id) => d.rates[rate]?.[id]?.addedP50)
    row(`JSON, ${rate} req/s: added p99`, (id) => d.rates[rate]?.[id]?.addedP99)
  }
  const topRate = Object.keys(d.rates).map(Number).sort((a, b) => a - b).at(-1)
  row(
    `highest rate held, added p99 < ${meta.settings.heldP99Ms} ms (req/s)`,
    (id) => d.held[id],
    { showRatio: false, fmt: (h) => (h?.rate === undefined ? `< ${meta.settings.fixedRates[0]}` : `${h.atCeiling ? '≥ ' : ''}${h.rate}`) },
  )
  if (Object.keys(results.throughput).length) {
    row('closed loop, 16 connections (autocannon): req/s', (id) => results.throughput[id]?.requestsPerSecond, { showRatio: false, fmt: (v: N) => (v === undefined ? '—' : String(Math.round(v))) })
  }
  row('stream: added TTFT p50', (id) => d.stream[id]?.addedTtftP50)
  row('stream: added TTFT p99', (id) => d.stream[id]?.addedTtftP99)
  row('stream: added inter-chunk p50', (id) => d.stream[id]?.addedGapP50)
  row('stream: added inter-chunk p99', (id) => d.stream[id]?.addedGapP99)
  const levels = Object.keys(results.streamLevels).map(Number).sort((a, b) => a - b)
  row(`most concurrent streams held (tried ${levels.join(', ')})`, (id) => d.mostStreams[id], { showRatio: false, fmt: (v: N) => (v === undefined ? `< ${levels[0]}` : String(v)) })
  row('RSS idle (MB)', (id) => d.rss[id]?.idle, { fmt: mb })
  row('RSS peak under load (MB)', (id) => d.rss[id]?.peak, { fmt: mb })
  row('RSS after load (MB)', (id) => d.rss[id]?.after, { fmt: mb })
  lines.push('')
  lines.push(
    `The harness alone (direct) held ${d.mostStreams.direct ?? `fewer than ${levels[0]}`} concurrent streams without a late delta ` +
      `(a delta arriving more than ${meta.settings.lateMs} ms after request sent + i × 20 ms); above that, late deltas measure this 2-core machine running the load generator, the fake server and the contender at once.`,
  )
  lines.push('')
  if (topRate !== undefined && results.rates[topRate]?.direct && !results.rates[topRate]?.direct?.held) {
    lines.push(`The harness itself (load generator + fake server, direct) did not hold ${topRate} req/s on this machine; no contender was tried above it.`)
    lines.push('')
  }

  // ---- targets ----
  lines.push('**Targets** (docs/benchmark.md)')
  lines.push('')
  lines.push('| target | measured | |')
  lines.push('|---|---|---|')
  for (const t of targets(results, d)) lines.push(`| ${t.target} | ${t.value} | ${mark(t.met)} |`)
  lines.push('')

  // ---- absolute numbers ----
  lines.push('**Absolute numbers** (ms; JSON latency is send → last byte; c=1 is the median of the rounds)')
  lines.push('')
  lines.push(`| measure | ${contenders.map((id) => label[id]).join(' | ')} |`)
  lines.push(`|---|${contenders.map(() => '---:').join('|')}|`)
  const abs = <V,>(name: string, get: (id: string) => V, fmt: (v: V) => string = ms as (v: V) => string): number => lines.push(`| ${name} | ${contenders.map((id) => fmt(get(id))).join(' | ')} |`)
  abs('JSON, 1 client: p50', (id) => d.seq[id]?.p50)
  abs('JSON, 1 client: p99', (id) => d.seq[id]?.p99)
  for (const rate of Object.keys(d.rates).map(Number).sort((a, b) => a - b)) {
    abs(`JSON, ${rate} req/s: p50 / p99 (achieved req/s)`, (id) => d.rates[rate]?.[id], (r) => (r ? `${ms(r.p50)} / ${ms(r.p99)} (${r.achieved})` : '—'))
  }
  abs('stream TTFT p50 / p99', (id) => d.stream[id], (s) => (s ? `${ms(s.ttftP50)} / ${ms(s.ttftP99)}` : '—'))
  abs('stream inter-chunk p50 / p99', (id) => d.stream[id], (s) => (s ? `${ms(s.gapP50)} / ${ms(s.gapP99)}` : '—'))
  abs('stream lateness p99 (arrival − sent − i × 20 ms)', (id) => d.stream[id]?.latenessP99)
  for (const level of levels) {
    abs(
      `${level} streams: ok / lost · late deltas · TTFT p99 · lateness p99 · RSS peak MB`,
      (id) => results.streamLevels[level]?.[id],
      (r) => (r ? `${r.streamsOk} / ${r.lostStreams} · ${r.lateFrames} · ${ms(r.ttft.p99)} · ${ms(r.lateness.p99)} · ${mb(r.rssPeakMb)}` : '—'),
    )
  }
  lines.push('')
  lines.push(...renderWitness(results), ...renderSweep(results))
  return lines.join('\n')
}

/** Put `markdown` between the results markers of docs/benchmark.md. */
export function updateDocs(markdown: string): void {
  const docs = join(ROOT, 'docs', 'benchmark.md')
  const START = '<!-- bench:results:start -->'
  const END = '<!-- bench:results:end -->'
  const text = readFileSync(docs, 'utf8')
  const a = text.indexOf(START)
  const b = text.indexOf(END)
  if (a === -1 || b < a) {
    process.stderr.write(`docs/benchmark.md has no ${START} … ${END} section; left as it is\n`)
    return
  }
  writeFileSync(docs, text.slice(0, a + START.length) + '\n' + markdown + '\n' + text.slice(b))
  process.stderr.write('Updated docs/benchmark.md\n')
}
