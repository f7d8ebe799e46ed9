// The shapes that cross process and file boundaries in the benchmark: a load job (run.ts → load.ts
// as JSON on the command line), its results (load.ts → run.ts as one JSON line), the contenders and
// the results file (run.ts → report.ts, render.ts).
import type { ChildProcess } from 'node:child_process'

export type Shape = 'default' | 'witness' | 'stable' | 'growing'
/** Which of Mortar's OpenAI- and Anthropic-style routes a job sends to (prompts.ts shapes the body). */
export type Api = 'chat' | 'responses' | 'messages'

export interface Prompt {
  shape?: Shape | undefined
  bytes?: number | undefined
}

export type Kind = 'json-seq' | 'json-rate' | 'stream'

export interface LoadJob {
  kind: Kind
  url: string
  headers?: Record<string, string> | undefined
  api?: Api | undefined
  prompt?: Prompt | undefined
  /** The number of the job's first request: the unique part of each body derives from it. */
  first?: number | undefined
  hardLimitMs?: number | undefined
  concurrency?: number | undefined
  warmup?: number | undefined
  count?: number | undefined
  rate?: number | undefined
  durationMs?: number | undefined
  warmupMs?: number | undefined
  maxSockets?: number | undefined
  maxInFlight?: number | undefined
  deltas?: number | undefined
  intervalMs?: number | undefined
  lateMs?: number | undefined
  rampMs?: number | undefined
  /** Streams and sequential JSON: each user's pause after a reply ends before the next request (0: none). */
  thinkMs?: number | undefined
}

/**
 * Percentiles of a list of milliseconds. An empty list gives `{ n: 0 }` alone (the percentiles
 * then read as undefined, which the report shows as —).
 */
export interface Summary {
  n: number
  mean: number
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
}

/** What every load job reports about itself, and what run.ts's `measure` adds. */
export interface JobCommon {
  loadEventLoopDelayMs?: { p99: number; max: number }
  wallMs?: number
  loadCpuCores?: number
  foreignCores?: number
  startedBusy?: number
  cpuUsPerRequest?: number
  error?: string
}

export interface JsonSeqResult extends JobCommon {
  latency: Summary
  bodyBytes: number
  completed: number
  rate: number
  errors: number
  errorSample: string[]
}

export interface JsonRateResult extends JobCommon {
  rate: number
  latency: Summary
  scheduleLag: Summary
  completed: number
  sent: number
  achievedRate: number
  skipped: number
  errors: number
  errorSample: string[]
  held?: boolean
}

export interface StreamFailure {
  status: number | undefined
  deltas: number
  inOrder: boolean
  sawFinish: boolean
  sawDone: boolean
  errorEvent: boolean
  why: string
}

export interface StreamResult extends JobCommon {
  concurrency: number
  streams: number
  streamsOk: number
  lostStreams: number
  frames: number
  lateFrames: number
  ttft: Summary
  interChunk: Summary
  lateness: Summary
  failures: StreamFailure[]
  rssPeakMb?: number | undefined
  held?: boolean
}

export interface ResultByKind {
  'json-seq': JsonSeqResult
  'json-rate': JsonRateResult
  stream: StreamResult
}

export interface Proc {
  name: string
  child: ChildProcess
  pid: number
  logFile: string
}

export interface Contender {
  id: string
  proc: Proc
  url: string
  headers: Record<string, string>
  /** The base of the contender's routes (`…/v1`): the sweep's other APIs are under it. */
  base: string
  home?: string
  upstreamProc?: Proc
  listening?: string[]
  jsonOk?: boolean
  streamOk?: boolean
}

export interface Upstream {
  proc: Proc
  port: number
  baseUrl: string
}

export interface Throughput {
  requestsPerSecond: number
  non2xx: number
  errors: number
  timeouts: number
  foreignCores: number | undefined
}

export interface Rss {
  idle: number | undefined
  peak: number
  peakByPhase: Record<string, number>
  after: number | undefined
}

export interface SweepCellResult {
  shape: Shape
  bytes: number
  api?: Api
  name: string
  json: Record<string, JsonSeqResult>
  stream: Record<string, StreamResult>
}

export interface Machine {
  nproc: number
  cpuModel: string
  memoryGb: number
  node: string
  platform: string
  mortar: { commit: string; srcModifiedSinceCommit: boolean; build: string | null }
  portkey: { version: string | undefined; honoNodeServer: string | undefined; hono: string | undefined }
  autocannon: string | undefined
}

export interface Settings {
  deltas: number
  intervalMs: number
  lateMs: number
  heldP99Ms: number
  fixedRates: number[]
  sweep: { streams: number }
}

export interface Results {
  meta: {
    date: string
    durationS: number
    command: string
    mode: 'quick' | 'full'
    machine: Machine
    settings: Settings
    portkeyListening?: string[] | undefined
    notes?: Record<string, string>
    foreignCpuLimit?: number
    retried?: { id: string; phase: string; foreignCores: number | undefined }[]
    load?: string | undefined
  }
  contenders: string[]
  seq: Record<string, JsonSeqResult[]>
  rates: Record<string, Record<string, JsonRateResult>>
  throughput: Record<string, Throughput>
  streamLight: Record<string, StreamResult[]>
  streamLevels: Record<string, Record<string, StreamResult>>
  rss: Record<string, Rss>
  witness?: Record<string, JsonSeqResult[]> | undefined
  sweep?: SweepCellResult[] | undefined
}
