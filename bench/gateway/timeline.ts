// Where a request's added latency is spent, from the kernel's side: each proxy's socket reads and
// writes, and the model server's, timed by Linux's syscall tracepoints (`perf record`, which here
// costs a few µs a call, where strace's ptrace stops cost ~100 µs and reorder what they measure).
// Per request at c=1 it splits a proxy's residence into what the proxy does and what it waits for:
//
//   request   the proxy's first read of the request → its last write of it to the model server
//   to server that write → the model server's last read of it (a wake-up of another process)
//   server    the model server's work, from that read to its first write of the reply
//   back      that write → the proxy's first read of the reply (a wake-up again)
//   reply     that read → the proxy's first write of the response to the client
//
// "request" and "reply" are the proxy's own time on the request's path (its code, the system
// calls it makes, and the garbage collections that fall there); the two hops are the machine's.
//
//   npx tsx bench/gateway/timeline.ts [--witness | --cells LIST] [--api chat|responses|messages]
//                                     [--pair] [--count 1000] [--rounds 2] [--baseline CLI] [--think-ms 0]
//
//   --witness       the independent harness's request (~340 B, max_tokens 16), the default
//   --cells LIST    sweep cells by name (sweep.ts), comma-separated: "stable 128 KB,growing 128 KB"
//   --pair          the harness's topology (pair.ts): the model server is the pair's fake server.
//                   The pair's own bare proxy shares that process, so its hops cannot be told from
//                   its work; the bare proxy measured is the same one in a process of its own.
//   --baseline CLI  another build's out/main/cli.js, as `mortar-baseline`, in the same rounds
//   --think-ms MS   a pause after each JSON reply before the next request, as a person or an agent
//                   leaves between turns: the path then runs on cold caches, as it does for them
//
//   --stream        streams instead of JSON replies, one at a time for `--seconds` a round (4), after
//                   `--warm-seconds` of streams (1): a stream's way to its first content delta, the
//                   added TTFT. The fake model server writes its reply's head, then its role chunk and
//                   first delta together, then the rest 5 ms apart; so here "server" ends at that
//                   second write, and "back" and "reply" are the first delta's way through the proxy.
//                   The split assumes a request body that arrives in one read (small prompts).
//
// Needs `npm run build`, Linux's `perf` and the right to trace (root, or perf_event_paranoid ≤ 1).
import { execFileSync, spawn } from 'node:child_process'
import { existsSync, mkdtempSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { startBare, startMortar, startPair, startUpstream } from './contenders'
import { median, summary, us } from './format'
import { ensureMortarBuild, runLoad, stopProcess } from './lib'
import { apiOption, cellName, cellsNamed, routeOf } from './sweep'
import type { Contender, Prompt } from './types'

const { values: opts } = parseArgs({
  options: {
    witness: { type: 'boolean', default: false },
    cells: { type: 'string' },
    api: { type: 'string', default: 'chat' },
    pair: { type: 'boolean', default: false },
    count: { type: 'string', default: '1000' },
    rounds: { type: 'string', default: '2' },
    baseline: { type: 'string' },
    stream: { type: 'boolean', default: false },
    seconds: { type: 'string', default: '4' },
    'warm-seconds': { type: 'string', default: '1' },
    'think-ms': { type: 'string', default: '0' },
  },
})
const API = apiOption(opts.api)
const COUNT = Number(opts.count)
const ROUNDS = Number(opts.rounds)
const THINK_MS = Number(opts['think-ms'])
const SEGMENTS = ['request', 'to server', 'server', 'back', 'reply'] as const
type Segment = (typeof SEGMENTS)[number]

/** One traced call: who made it (the proxy or the model server), a read that got bytes or a write, when (µs). */
interface SocketCall {
  side: 'proxy' | 'server'
  op: 'read' | 'write'
  atUs: number
}

ensureMortarBuild()
const logDir = mkdtempSync(join(tmpdir(), 'mortar-timeline-'))
console.log(`logs: ${logDir}`)
/** A stream's deltas: few and close together, so that many streams fit in a round. */
const STREAM = { deltas: 3, intervalMs: 5 }
/** How many calls on either side of a stream's start its segments are looked for in: a stream makes a few dozen. */
const NEARBY_CALLS = 40
const served = opts.stream ? STREAM : { deltas: 64, intervalMs: 20 }
const pair = opts.pair ? await startPair({ logDir, ...served }) : undefined
const upstream = pair?.upstream ?? (await startUpstream({ logDir, ...served }))
const contenders: Contender[] = [{ ...(await startBare(upstream, { logDir })), id: pair ? 'bare (own process)' : 'bare' }, await startMortar(upstream, { logDir })]
if (opts.baseline) contenders.push(await startMortar(upstream, { logDir, name: 'mortar-baseline', id: 'mortar-baseline', cli: opts.baseline }))
const cells: { name: string; prompt: Prompt }[] =
  opts.cells === undefined ? [{ name: 'witness', prompt: { shape: 'witness' } }] : cellsNamed(opts.cells).map((cell) => ({ name: cellName(cell), prompt: { shape: cell.shape, bytes: cell.bytes } }))
let first = 0
const load = (c: Contender, prompt: Prompt | undefined, count: number, concurrency: number) =>
  runLoad({ ...routeOf(c, API), headers: c.headers, first: (first += 1_000_000), kind: 'json-seq', concurrency, warmup: 0, count, thinkMs: concurrency === 1 ? THINK_MS : 0, ...(prompt ? { prompt } : {}) })
const streams = (c: Contender, prompt: Prompt | undefined, seconds: number) =>
  runLoad({ ...routeOf(c, API), headers: c.headers, first: (first += 1_000_000), kind: 'stream', concurrency: 1, durationMs: seconds * 1000, rampMs: 0, ...STREAM, ...(prompt ? { prompt } : {}) })
/** One round's measured load: `COUNT` JSON requests, or streams for `--seconds`. */
const measured = (c: Contender, prompt: Prompt) => (opts.stream ? streams(c, prompt, Number(opts.seconds)) : load(c, prompt, COUNT, 1))

try {
  for (const c of contenders) {
    await load(c, undefined, 2000, 4)
    if (opts.stream) await streams(c, undefined, Number(opts['warm-seconds']))
  }
  for (const cell of cells) {
    const bySegment = new Map<string, Record<Segment, number[]>>(contenders.map((c) => [c.id, { request: [], 'to server': [], server: [], back: [], reply: [] }]))
    const cycles = new Map<string, number>(contenders.map((c) => [c.id, 0]))
    // Each round's median of the proxy's own time (request + reply): how far one round can be trusted.
    const ownByRound = new Map<string, number[]>(contenders.map((c) => [c.id, []]))
    // Streams: the proxy's own time for each later delta (its read → its write), what inter-chunk gaps add.
    const laterDeltas = new Map<string, number[]>(contenders.map((c) => [c.id, []]))
    for (let round = 0; round < ROUNDS; round++) {
      for (const c of round % 2 === 0 ? contenders : [...contenders].reverse()) {
        await load(c, cell.prompt, 200, 1)
        const calls = await traced(c.proc.pid, upstream.proc.pid, round, () => measured(c, cell.prompt))
        const found = opts.stream ? streamCyclesOf(calls) : cyclesOf(calls)
        if (opts.stream) laterDeltas.get(c.id)!.push(...laterDeltaTimes(calls))
        cycles.set(c.id, (cycles.get(c.id) ?? 0) + found.length)
        for (const cycle of found) for (const segment of SEGMENTS) bySegment.get(c.id)![segment].push(cycle[segment])
        ownByRound.get(c.id)!.push(median(found.map((cycle) => cycle.request + cycle.reply)) ?? NaN)
      }
    }
    const what = opts.stream ? `to the first content delta of a stream, ${ROUNDS} rounds of ${opts.seconds} s` : `per request, ${ROUNDS} rounds of ${COUNT}`
    console.log(`\n${API === 'chat' ? '' : `${API}: `}${cell.name}${opts.stream ? ', streamed' : ''}${opts.pair ? ' (the harness topology)' : ''}: median µs ${what}`)
    console.log(`| contender | cycles | ${SEGMENTS.join(' | ')} | request + reply | sum |`)
    console.log(`|---|---:|${SEGMENTS.map(() => '---:').join('|')}|---:|---:|`)
    for (const c of contenders) {
      const m = Object.fromEntries(SEGMENTS.map((s) => [s, median(bySegment.get(c.id)![s]) ?? NaN])) as Record<Segment, number>
      const sum = SEGMENTS.reduce((total, s) => total + m[s], 0)
      console.log(`| ${c.id} | ${cycles.get(c.id)} | ${SEGMENTS.map((s) => m[s].toFixed(0)).join(' | ')} | ${(m.request + m.reply).toFixed(0)} | ${sum.toFixed(0)} |`)
    }
    for (const c of contenders) console.log(`  ${c.id}: request + reply, each round's median: ${ownByRound.get(c.id)!.map((us) => us.toFixed(0)).join(' ')}`)
    for (const c of contenders) {
      if (!opts.stream) continue
      const { n, p50, p90, p99 } = summary(laterDeltas.get(c.id)!)
      console.log(`  ${c.id}: each later delta, the proxy's read → its write (${n}): p50 ${us(p50)}, p90 ${us(p90)}, p99 ${us(p99)} µs`)
    }
  }
} finally {
  for (const c of contenders) await stopProcess(c.proc)
  await stopProcess(upstream.proc)
}

/** The two processes' socket calls while `run` runs, from `perf record` of their syscall tracepoints. */
async function traced(proxyPid: number, serverPid: number, round: number, run: () => Promise<unknown>): Promise<SocketCall[]> {
  const file = join(logDir, `trace-${proxyPid}-${round}.data`)
  const events = ['syscalls:sys_exit_read', 'syscalls:sys_enter_write', 'syscalls:sys_enter_writev']
  const perf = spawn('perf', ['record', '-q', '-o', file, '-p', `${proxyPid},${serverPid}`, ...events.flatMap((e) => ['-e', e])], { stdio: ['ignore', 'ignore', 'pipe'] })
  let errors = ''
  let failed = false
  perf.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  // No perf on this machine (ENOENT), or not allowed to run it.
  perf.on('error', (error) => {
    failed = true
    errors += error.message
  })
  const exited = new Promise<number | null>((resolve) => perf.on('close', resolve))
  // perf has attached once it has written its file's header.
  while (!(existsSync(file) && statSync(file).size > 0)) {
    if (failed || perf.exitCode !== null) throw new Error(`perf record could not trace (${perf.exitCode ?? 'not started'}): ${errors}`)
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  await run()
  perf.kill('SIGINT')
  await exited
  const text = execFileSync('perf', ['script', '-i', file, '-F', 'pid,time,event,trace'], { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] })
  const calls: SocketCall[] = []
  for (const line of text.split('\n')) {
    const match = /^\s*(\d+)(?:\/\d+)?\s+([\d.]+):\s+syscalls:sys_(exit_read|enter_write|enter_writev):\s*(.*)$/.exec(line)
    if (match === null) continue
    const [, pid, seconds, event, args] = match as unknown as [string, string, string, string, string]
    const side = Number(pid) === proxyPid ? 'proxy' : 'server'
    if (event === 'exit_read') {
      // A read that got bytes (not 0 at a close, nor -EAGAIN).
      const returned = Number.parseInt(args, 16)
      if (!(returned > 0 && returned < 2 ** 31)) continue
    } else {
      // Writes to stdout and stderr are logging, not the exchange.
      const fd = Number.parseInt(/fd: (0x[0-9a-f]+)/.exec(args)?.[1] ?? '0', 16)
      if (fd <= 2) continue
    }
    calls.push({ side, op: event === 'exit_read' ? 'read' : 'write', atUs: Number(seconds) * 1e6 })
  }
  return calls.sort((a, b) => a.atUs - b.atUs)
}

/**
 * The requests' segments. The model server's first write after reading marks each reply's start;
 * between two of those starts, the proxy reads the first reply, writes it to the client, then
 * reads the next request and writes it to the model server (a pipe interleaves those last two).
 */
function cyclesOf(calls: SocketCall[]): Record<Segment, number>[] {
  const replyStarts: number[] = []
  let lastServerOp: SocketCall['op'] | undefined
  for (const call of calls) {
    if (call.side !== 'server') continue
    if (call.op === 'write' && lastServerOp === 'read') replyStarts.push(call.atUs)
    lastServerOp = call.op
  }
  const cycles: Record<Segment, number>[] = []
  for (let k = 0; k + 1 < replyStarts.length; k++) {
    const from = replyStarts[k]!
    const to = replyStarts[k + 1]!
    const within = calls.filter((call) => call.atUs > from && call.atUs < to)
    const proxy = within.filter((call) => call.side === 'proxy')
    const firstWrite = proxy.findIndex((call) => call.op === 'write')
    const requestRead = proxy.findIndex((call, i) => i > firstWrite && call.op === 'read')
    const lastWrite = proxy.findLastIndex((call) => call.op === 'write')
    const serverRead = within.findLast((call) => call.side === 'server' && call.op === 'read')
    if (proxy[0]?.op !== 'read' || firstWrite < 0 || requestRead < 0 || lastWrite < requestRead || serverRead === undefined) continue
    cycles.push({
      back: proxy[0].atUs - from,
      reply: proxy[firstWrite]!.atUs - proxy[0].atUs,
      request: proxy[lastWrite]!.atUs - proxy[requestRead]!.atUs,
      'to server': serverRead.atUs - proxy[lastWrite]!.atUs,
      server: to - serverRead.atUs,
    })
  }
  return cycles
}

/**
 * A stream's segments to its first content delta. Each stream starts where the model server reads
 * a request and then writes (its head); its second write carries the role chunk and the first
 * delta. The proxy's request is its first read after its last write before that (the previous
 * stream's end, or nothing) up to its last write before the server's read; its reply is its first
 * read after the server's second write up to its next write.
 */
function streamCyclesOf(calls: SocketCall[]): Record<Segment, number>[] {
  const cycles: Record<Segment, number>[] = []
  for (let i = 1; i < calls.length; i++) {
    const serverRead = calls[i - 1]!
    const head = calls[i]!
    if (!(serverRead.side === 'server' && serverRead.op === 'read' && head.side === 'server' && head.op === 'write')) continue
    // A stream's calls are a few dozen: look no further than that either way.
    const before = calls.slice(Math.max(0, i - 1 - NEARBY_CALLS), i - 1)
    const lastWrite = before.findLastIndex((call) => call.side === 'proxy' && call.op === 'write')
    const previousWrite = before.findLastIndex((call, j) => j < lastWrite && call.side === 'proxy' && call.op === 'write')
    const requestRead = before.findIndex((call, j) => j > previousWrite && j < lastWrite && call.side === 'proxy' && call.op === 'read')
    const after = calls.slice(i + 1, i + 1 + NEARBY_CALLS)
    const first = after.find((call) => call.side === 'server' && call.op === 'write')
    if (lastWrite < 0 || requestRead < 0 || first === undefined) continue
    const passed = passedOn(after, first.atUs)
    if (passed === undefined) continue
    cycles.push({
      request: before[lastWrite]!.atUs - before[requestRead]!.atUs,
      'to server': serverRead.atUs - before[lastWrite]!.atUs,
      server: first.atUs - serverRead.atUs,
      back: passed.read.atUs - first.atUs,
      reply: passed.write.atUs - passed.read.atUs,
    })
  }
  return cycles
}

/**
 * The proxy's own time for each delta after a stream's first: a model server's write that comes
 * after its own previous write (not after reading a request), and at least half an interval later
 * (the next delta, not the second half of one); from the proxy's first read after it to its next
 * write.
 */
function laterDeltaTimes(calls: SocketCall[]): number[] {
  const times: number[] = []
  let previousServer: SocketCall | undefined
  for (const [i, call] of calls.entries()) {
    if (call.side !== 'server') continue
    const previous = previousServer
    previousServer = call
    if (call.op !== 'write' || previous?.op !== 'write' || call.atUs - previous.atUs < (STREAM.intervalMs * 1000) / 2) continue
    const passed = passedOn(calls.slice(i + 1, i + 1 + NEARBY_CALLS), call.atUs)
    if (passed !== undefined) times.push(passed.write.atUs - passed.read.atUs)
  }
  return times
}

/** The proxy's first read of `calls` after `fromUs` (the model server's write), and its next write: how it passed those bytes on. */
function passedOn(calls: readonly SocketCall[], fromUs: number): { read: SocketCall; write: SocketCall } | undefined {
  const read = calls.find((call) => call.side === 'proxy' && call.op === 'read' && call.atUs > fromUs)
  const write = read && calls.find((call) => call.side === 'proxy' && call.op === 'write' && call.atUs > read.atUs)
  return read === undefined || write === undefined ? undefined : { read, write }
}
