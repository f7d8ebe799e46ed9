// Two more shapes of `npm run bench` (docs/benchmark.md#two-shapes), run by run.ts after the main
// table with the same contenders and the same `measure` (quiet machine, foreign CPU counted):
//
//   witness  the independent harness's request — system + user ~340 B, max_tokens 16, stream false,
//            sequential over one kept-alive socket — in both topologies: the fake server and the bare
//            proxy in one process (pair.ts, as that harness ran them), and each in its own process
//            (as the main table). Shows how much of the two tables' disagreement is the topology.
//   sweep    the prompt sizes IDE tools send, 340 B / 4 KB / 32 KB / 128 KB, as a stable prefix
//            (the same system prompt every time) and as a growing agent history (prompts.ts), each
//            with JSON at concurrency 1 (added p50) and with streams (added TTFT, inter-chunk p99),
//            for every contender of the run: ratios to the floor, to Portkey and capture on ÷ off.
import { processTicks } from './lib'
import { sizeLabel } from './prompts'
import type { Api, Contender, JobCommon, JsonSeqResult, LoadJob, Kind, ResultByKind, Shape, StreamResult, SweepCellResult } from './types'

const TICK_US = 10_000

/**
 * Run a load job and add `cpuUsPerRequest`: the CPU (utime + stime) the contender's own process
 * used per request, warm-up included. At c=1 a proxy's added latency is mostly its CPU per
 * request, and on a shared machine CPU time is far steadier than latency.
 */
async function withCpu<R extends JsonSeqResult>(contender: Contender, run: () => Promise<R>, requests: (result: R) => number): Promise<R> {
  const before = processTicks(contender.proc.pid)
  const result = await run()
  result.cpuUsPerRequest = Math.round(((processTicks(contender.proc.pid) - before) * TICK_US) / Math.max(1, requests(result)))
  return result
}
export interface SweepCell {
  shape: Shape
  bytes: number
}

export const SWEEP_CELLS: SweepCell[] = [
  { shape: 'stable', bytes: 340 },
  { shape: 'stable', bytes: 4096 },
  { shape: 'stable', bytes: 32768 },
  { shape: 'stable', bytes: 131072 },
  { shape: 'growing', bytes: 4096 },
  { shape: 'growing', bytes: 32768 },
  { shape: 'growing', bytes: 131072 },
]
export const cellName = (cell: SweepCell): string => `${cell.shape} ${sizeLabel(cell.bytes)}`

/** The cells a `--cells` list names ("stable 32 KB,growing 128 KB"), every cell without one; a list that names none is an error. */
export function cellsNamed(list: string | undefined): SweepCell[] {
  const wanted = list?.split(',').map((name) => name.trim())
  const cells = SWEEP_CELLS.filter((cell) => wanted === undefined || wanted.includes(cellName(cell)))
  if (cells.length === 0) throw new Error(`--cells: none of ${list}; the cells are ${SWEEP_CELLS.map(cellName).join(', ')}`)
  return cells
}

// Request numbers of one job never overlap another's (load.ts `first`): what one job brought new is
// not already cached for the next. A multiple of every conversation length prompts.ts uses up to 32.
const JOB_STRIDE = 96_000
let nextFirst = JOB_STRIDE
const fresh = (): number => (nextFirst += JOB_STRIDE)
/**
 * Requests a stream job sends first, as JSON, unrecorded (load.ts `warmup`), as each JSON job has
 * its own warm-up: every job starts a conversation, and without them the eight users' first
 * streams — half of a cell's — were all first turns of a history nobody had sent before, so a
 * growing cell's TTFT measured the tokenizing of a whole new history rather than a turn.
 */
const STREAM_WARMUP = 8

/**
 * The witness's request at c=1, `rounds` rounds with the contenders' order rotated, in both
 * topologies. `pairs` maps the one-process ids (direct-1p, bare-1p, mortar-1p) to contenders.
 */
/** What run.ts hands the two sections: its contenders, its `measure` and a way to run a load job. */
export interface SectionContext {
  contenders: Record<string, Contender>
  measure: <R extends JobCommon>(id: string, phase: string, load: () => Promise<R>) => Promise<R>
  /** A load job against `contender` (at its chat URL unless the job names another). */
  job: <K extends Kind>(contender: Contender, load: Omit<LoadJob, 'url'> & { kind: K; url?: string }) => Promise<ResultByKind[K]>
  log: (message: string) => void
}

export async function runWitness({
  contenders,
  ids,
  measure,
  job,
  P,
  log,
}: SectionContext & { ids: string[]; P: { rounds: number; warmup: number; count: number } }): Promise<Record<string, JsonSeqResult[]>> {
  const out: Record<string, JsonSeqResult[]> = Object.fromEntries(ids.map((id) => [id, []]))
  for (let round = 0; round < P.rounds; round++) {
    for (const id of ids.map((_, i) => ids[(i + round) % ids.length]!)) {
      log(`witness c=1 round ${round + 1}/${P.rounds}: ${id}`)
      const contender = contenders[id]!
      const run = (): Promise<JsonSeqResult> => {
        const load = { kind: 'json-seq' as const, concurrency: 1, warmup: P.warmup, count: P.count, prompt: { shape: 'witness' as const }, first: fresh() }
        return withCpu(contender, () => job(contender, load), (r) => r.completed + P.warmup)
      }
      out[id]!.push(await measure(id, 'witness', run))
    }
  }
  return out
}

/**
 * The sweep's cells on the other two APIs, for the floor and Mortar (capture memory, the default):
 * the smallest and the largest prompts, and a growing history.
 */
export const API_CELLS: SweepCell[] = [
  { shape: 'stable', bytes: 340 },
  { shape: 'stable', bytes: 131072 },
  { shape: 'growing', bytes: 32768 },
  { shape: 'growing', bytes: 131072 },
]
export const SWEEP_APIS: Api[] = ['responses', 'messages']

/** A script's `--api` value as an API, or an error naming the ones there are. */
export function apiOption(value: string): Api {
  const apis: readonly Api[] = ['chat', ...SWEEP_APIS]
  if (!apis.includes(value as Api)) throw new Error(`--api: one of ${apis.join(', ')}`)
  return value as Api
}
const API_CONTENDERS = new Set(['direct', 'bare', 'mortar'])

/**
 * Where a contender takes a request of `api`, and in which API's shape. The fake model server
 * answers chat completions and, natively, the Responses API, so the floor forwards both as they
 * are; it has no Messages API, which Mortar translates to chat completions — so for Messages the
 * floor (and direct) carry the same conversation as chat completions: the least any gateway moves
 * for it.
 */
export function routeOf(contender: Contender, api: Api): { url: string; api: Api } {
  if (api === 'chat') return { url: contender.url, api }
  if (api === 'messages' && !contender.id.startsWith('mortar')) return { url: `${contender.base}/chat/completions`, api: 'chat' }
  return { url: `${contender.base}/${api}`, api }
}

/** Every sweep cell for every contender: JSON at c=1, then streams; then the API cells. */
export async function runSweep({
  contenders,
  jsonIds,
  streamIds,
  measure,
  job,
  P,
  log,
}: SectionContext & { jsonIds: string[]; streamIds: string[]; P: { settle: number; warmup: number; count: number; streams: number; streamMs: number } }): Promise<SweepCellResult[]> {
  const cells: SweepCellResult[] = []
  const runCell = async (cell: SweepCell, api: Api, index: number, jsonRun: string[], streamRun: string[]): Promise<void> => {
    const prompt = { shape: cell.shape, bytes: cell.bytes }
    const name = api === 'chat' ? cellName(cell) : `${api}: ${cellName(cell)}`
    const json: Record<string, JsonSeqResult> = {}
    for (const id of jsonRun.map((_, i) => jsonRun[(i + index) % jsonRun.length]!)) {
      log(`sweep ${name}, JSON c=1: ${id}`)
      const contender = contenders[id]!
      // Untimed, uncounted: the paths this cell's requests take are compiled before it is measured.
      await job(contender, { kind: 'json-seq', ...routeOf(contender, api), concurrency: 1, warmup: 0, count: P.settle, prompt, first: fresh() })
      json[id] = await measure(id, 'sweep-json', () => {
        const load = { kind: 'json-seq' as const, ...routeOf(contender, api), concurrency: 1, warmup: P.warmup, count: P.count, prompt, first: fresh() }
        return withCpu(contender, () => job(contender, load), (r) => r.completed + P.warmup)
      })
    }
    const stream: Record<string, StreamResult> = {}
    for (const id of streamRun.map((_, i) => streamRun[(i + index) % streamRun.length]!)) {
      log(`sweep ${name}, streams x${P.streams}: ${id}`)
      const contender = contenders[id]!
      stream[id] = await measure(id, 'sweep-stream', () =>
        job(contender, { kind: 'stream', ...routeOf(contender, api), concurrency: P.streams, durationMs: P.streamMs, rampMs: 200, warmup: STREAM_WARMUP, prompt, first: fresh() }),
      )
    }
    cells.push({ ...cell, ...(api === 'chat' ? {} : { api }), name, json, stream })
  }
  for (const [index, cell] of SWEEP_CELLS.entries()) await runCell(cell, 'chat', index, jsonIds, streamIds)
  for (const api of SWEEP_APIS) {
    // Only contenders that answer this API right (one stream, checked delta by delta) are timed on it.
    const ok: string[] = []
    for (const id of streamIds.filter((i) => API_CONTENDERS.has(i))) {
      const contender = contenders[id]!
      const check = await job(contender, { kind: 'stream', ...routeOf(contender, api), concurrency: 1, durationMs: 0, rampMs: 0 })
      if (check.streamsOk === 1) ok.push(id)
      else log(`sweep ${api}: ${id} failed verification (${JSON.stringify(check.failures[0] ?? check)}); left out`)
    }
    if (!ok.includes('direct')) continue
    for (const [index, cell] of API_CELLS.entries()) await runCell(cell, api, index, ok.filter((id) => jsonIds.includes(id)), ok)
  }
  return cells
}
