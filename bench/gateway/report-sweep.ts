// The witness and sweep sections of the report (sweep.ts): markdown tables and the targets of
// docs/benchmark.md#two-shapes. "Added" is contender − direct of the same topology, same cell.
import { LABELS } from './contenders'
import { median, ms, us, ratio, mark } from './format'
import type { Api, JsonSeqResult, Results, Shape, SweepCellResult } from './types'

const kb = (bytes: number | undefined): string => (bytes === undefined ? '—' : bytes < 1024 ? `${bytes} B` : `${(bytes / 1024).toFixed(1)} KB`)

/** Added p50 (ms) per witness contender: the median over rounds of round p50 − that round's direct p50. */
export interface WitnessRow {
  p50: number | undefined
  addedP50: number | undefined
  cpuUs: number | undefined
  bodyBytes: number | undefined
}

export function deriveWitness(witness: Record<string, JsonSeqResult[]> | undefined): Record<string, WitnessRow> | undefined {
  if (!witness) return undefined
  const base = (id: string): string => (id.endsWith('-1p') ? 'direct-1p' : 'direct')
  const out: Record<string, WitnessRow> = {}
  for (const [id, rounds] of Object.entries(witness)) {
    const direct = witness[base(id)] ?? []
    out[id] = {
      p50: median(rounds.map((r) => r.latency.p50)),
      addedP50: id.startsWith('direct') ? undefined : median(rounds.map((r, i) => (direct[i] ? r.latency.p50 - direct[i].latency.p50 : undefined))),
      // The proxy's own CPU per request; the bare proxy shares its process with the fake server there.
      cpuUs: median(rounds.map((r, i) => (id === 'bare-1p' && direct[i] ? (r.cpuUsPerRequest ?? NaN) - (direct[i].cpuUsPerRequest ?? NaN) : r.cpuUsPerRequest))),
      bodyBytes: rounds[0]?.bodyBytes,
    }
  }
  return out
}

/** Per cell and contender: added JSON p50, added TTFT p50, added inter-chunk p99 (ms). */
export interface SweepRow {
  addedP50: number | undefined
  cpuUs: number | undefined
  addedTtftP50: number | undefined
  addedGapP99: number | undefined
  lost: number | undefined
}

export interface SweepDerived {
  name: string
  api: Api
  shape: Shape
  bytes: number
  bodyBytes: number | undefined
  by: Record<string, SweepRow>
}

export function deriveSweep(sweep: SweepCellResult[] | undefined): SweepDerived[] | undefined {
  if (!sweep) return undefined
  return sweep.map((cell) => {
    const by: Record<string, SweepRow> = {}
    const dj = cell.json.direct
    const ds = cell.stream.direct
    for (const id of new Set([...Object.keys(cell.json), ...Object.keys(cell.stream)])) {
      const j = cell.json[id]
      const s = cell.stream[id]
      by[id] = {
        addedP50: id === 'direct' || !j || !dj ? undefined : j.latency.p50 - dj.latency.p50,
        cpuUs: j?.cpuUsPerRequest,
        addedTtftP50: id === 'direct' || !s || !ds ? undefined : s.ttft.p50 - ds.ttft.p50,
        addedGapP99: id === 'direct' || !s || !ds ? undefined : s.interChunk.p99 - ds.interChunk.p99,
        lost: s?.lostStreams,
      }
    }
    return { name: cell.name, api: cell.api ?? 'chat', shape: cell.shape, bytes: cell.bytes, bodyBytes: dj?.bodyBytes, by }
  })
}

/** The targets on these two shapes (Mortar with capture memory, the default). */
export interface Target {
  target: string
  value: string
  met: boolean | undefined
}

export function sweepTargets(sweepDerived: SweepDerived[] | undefined): Target[] {
  if (!sweepDerived) return []
  const list: Target[] = []
  const at = (shape: Shape, bytes: number, api: Api = 'chat'): SweepDerived | undefined =>
    sweepDerived.find((c) => c.shape === shape && c.bytes === bytes && c.api === api)
  const floorRatio = (cell: SweepDerived | undefined, limit: number): Omit<Target, 'target'> => {
    const m = cell?.by.mortar?.addedP50
    const b = cell?.by.bare?.addedP50
    return { value: m !== undefined && b !== undefined ? `${ms(m)} ms vs ${ms(b)} ms → ${ratio(m, b)}` : '—', met: m !== undefined && b !== undefined && b > 0 ? m <= limit * b : undefined }
  }
  const small = at('stable', 340)
  list.push({ target: "Sweep, 340 B stable: Mortar's added p50 ≤ 1.5 × the floor's", ...floorRatio(small, 1.5) })
  for (const shape of ['stable', 'growing'] as const) list.push({ target: `Sweep, 128 KB ${shape}: Mortar's added p50 ≤ 2 × the floor's`, ...floorRatio(at(shape, 131072), 2) })
  for (const api of ['responses', 'messages'] as const) {
    if (!sweepDerived.some((c) => c.api === api)) continue
    list.push({ target: `Sweep, /v1/${api}, 340 B stable: Mortar's added p50 ≤ 1.5 × the floor's`, ...floorRatio(at('stable', 340, api), 1.5) })
    for (const shape of ['stable', 'growing'] as const) list.push({ target: `Sweep, /v1/${api}, 128 KB ${shape}: Mortar's added p50 ≤ 2 × the floor's`, ...floorRatio(at(shape, 131072, api), 2) })
  }
  const finite = (x: number | undefined): x is number => Number.isFinite(x)
  const ttft = sweepDerived.map((c) => c.by.mortar?.addedTtftP50).filter(finite)
  const gaps = sweepDerived.map((c) => c.by.mortar?.addedGapP99).filter(finite)
  list.push({ target: 'Sweep, every size: added TTFT p50 ≤ 1 ms', value: ttft.length ? `worst ${ms(Math.max(...ttft))} ms` : '—', met: ttft.length ? Math.max(...ttft) <= 1 : undefined })
  list.push({ target: 'Sweep, every size: added inter-chunk p99 ≤ 1 ms', value: gaps.length ? `worst ${ms(Math.max(...gaps))} ms` : '—', met: gaps.length ? Math.max(...gaps) <= 1 : undefined })
  return list
}

export function renderWitness(results: Results): string[] {
  const w = deriveWitness(results.witness)
  if (!w) return []
  const lines = ['**The independent harness\'s request** (system + user ~340 B, max_tokens 16, stream false, c=1 over one kept-alive socket; median of the rounds)', '']
  lines.push('| topology | direct p50 | floor added p50 | Mortar added p50 | Mortar ÷ floor | CPU µs/request: floor / Mortar | ÷ |')
  lines.push('|---|---:|---:|---:|---:|---:|---:|')
  const row = (name: string, d: string, b: string, m: string): void => {
    const [wd, wb, wm] = [w[d], w[b], w[m]]
    if (!wd || !wb || !wm) return
    lines.push(
      `| ${name} | ${ms(wd.p50)} | ${ms(wb.addedP50)} | ${ms(wm.addedP50)} | ${ratio(wm.addedP50, wb.addedP50)} | ` +
        `${us(wb.cpuUs)} / ${us(wm.cpuUs)} | ${ratio(wm.cpuUs, wb.cpuUs)} |`,
    )
  }
  row(`fake server and bare proxy in one process (as that harness), ${kb(w['direct-1p']?.bodyBytes)} body`, 'direct-1p', 'bare-1p', 'mortar-1p')
  row(`each in its own process (as the main table), ${kb(w.direct?.bodyBytes)} body`, 'direct', 'bare', 'mortar')
  lines.push('')
  return lines
}

export function renderSweep(results: Results): string[] {
  const cells = deriveSweep(results.sweep)
  if (!cells) return []
  const others = results.contenders.filter((id) => id !== 'direct')
  const has = (id: string): boolean => others.includes(id)
  const ratios: [string, string, string][] = []
  if (has('mortar') && has('bare')) ratios.push(['Mortar ÷ floor', 'mortar', 'bare'])
  if (has('mortar') && has('portkey')) ratios.push(['Mortar ÷ Portkey', 'mortar', 'portkey'])
  if (has('mortar') && has('mortar-capture-off')) ratios.push(['capture memory ÷ off', 'mortar', 'mortar-capture-off'])
  if (has('mortar') && has('mortar-baseline')) ratios.push(['Mortar ÷ baseline build', 'mortar', 'mortar-baseline'])
  const lines: string[] = []
  const table = (title: string, key: keyof SweepRow, fmt: (v: number | undefined) => string = ms): void => {
    lines.push(title, '')
    lines.push(`| prompt (mean body) | ${others.map((id) => LABELS[id]).join(' | ')} | ${ratios.map((r) => r[0]).join(' | ')} |`)
    lines.push(`|---|${others.map(() => '---:').join('|')}|${ratios.map(() => '---:').join('|')}|`)
    for (const c of cells) {
      const v = (id: string): number | undefined => c.by[id]?.[key]
      lines.push(`| ${c.name} (${kb(c.bodyBytes)}) | ${others.map((id) => fmt(v(id))).join(' | ')} | ${ratios.map(([, a, b]) => ratio(v(a), v(b))).join(' | ')} |`)
    }
    lines.push('')
  }
  table('**Prompt-size sweep: JSON, 1 client, added p50** (ms; 128k-token window; "stable" repeats one system prompt, "growing" adds one agent turn per request)', 'addedP50')
  table('**Prompt-size sweep: JSON, 1 client, CPU per request** (µs of the contender\'s own process, utime + stime, once the cell\'s own untimed requests have warmed it: steadier than latency on a shared machine)', 'cpuUs', us)
  table(`**Prompt-size sweep: streams (${results.meta.settings.sweep.streams} clients), added TTFT p50** (ms)`, 'addedTtftP50')
  table('**Prompt-size sweep: streams, added inter-chunk p99** (ms)', 'addedGapP99')
  const lost = cells.flatMap((c) => Object.entries(c.by).filter(([, v]) => (v.lost ?? 0) > 0).map(([id, v]) => `${LABELS[id]} ${c.name}: ${v.lost}`))
  if (lost.length) lines.push(`Streams lost in the sweep: ${lost.join('; ')}.`, '')
  lines.push('**Targets on these shapes**', '', '| target | measured | |', '|---|---|---|')
  for (const t of sweepTargets(cells)) lines.push(`| ${t.target} | ${t.value} | ${mark(t.met)} |`)
  lines.push('')
  return lines
}
