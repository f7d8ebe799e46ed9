// The load generator: its own process, started by run.ts once per measurement, loopback only.
//
//   node --import tsx load.ts '<job as JSON>'   → one JSON result line on stdout
//
// Jobs (all bounded in count and time):
//   json-seq    closed loop: `concurrency` clients (1 = sequential), `count` requests after `warmup`.
//   json-rate   open loop at a fixed `rate` for `durationMs`: request k is sent at t0 + k/rate, whether
//               or not earlier ones have answered, so a slow contender cannot slow the load down
//               (no coordinated omission). Latency is from that send to the response's last byte.
//               `scheduleLag` says how far behind its own schedule the load generator fell.
//   stream      `concurrency` virtual users, each opening streams back to back for `durationMs`
//               (starts spread over `rampMs`); with `warmup`, that many requests before them, sent
//               one at a time as JSON and not recorded. Every stream is checked: status 200, all `deltas`
//               content deltas in order (` t0`, ` t1`, …), a finish chunk, `[DONE]`. Recorded: TTFT
//               (send → first content delta), inter-chunk gaps, and each delta's lateness: arrival −
//               (request sent + i × interval), i.e. how much later than with no delay at all it came
//               (the fake server sends delta i at its arrival + i × interval). A delta later than
//               `lateMs` is late — the first one too, so slow admission counts.
//
// Every job may name a `prompt` ({ shape, bytes }: prompts.ts; the default shape when absent),
// `first`, the number of its first request (the unique part of each body derives from it), and
// `api` (chat, responses, messages: prompts.ts writes the body in that API's shape, and a stream
// is read as that API writes it — STREAM_MARKS).

//
// Timing is performance.now() (monotonic, sub-microsecond). Latencies are in milliseconds.
import { Agent, request, type ClientRequest, type IncomingMessage } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { summary } from './format'
import { bodyMaker } from './prompts'
import type { Api, JobCommon, JsonRateResult, JsonSeqResult, LoadJob, StreamFailure, StreamResult } from './types'

const job = JSON.parse(process.argv[2] ?? '{}') as LoadJob
const target = new URL(job.url)
if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('load.ts sends to loopback only')
const HARD_LIMIT_MS = job.hardLimitMs ?? 120_000

// Where this job's request numbers start: jobs given different ranges send different unique parts,
// so what one job's requests brought is not already cached for the next.
const FIRST = job.first ?? 0
// The body of request n, in the job's prompt shape (prompts.ts), for JSON and for streams.
const bodies = { json: bodyMaker(job.prompt, false, job.api), stream: bodyMaker(job.prompt, true, job.api) }

/** The body of request n: built before its clock starts, so a large prompt's JSON.stringify is not timed. */
const bodyOf = (n: number, stream: boolean): string => (stream ? bodies.stream : bodies.json)(FIRST + n)

type ErrorWithCode = Error & { code?: string }

function send(agent: Agent, payload: string, stream: boolean, onResponse: (res: IncomingMessage) => void, onError: (error: ErrorWithCode) => void): ClientRequest {
  const req = request(
    {
      host: target.hostname,
      port: target.port,
      method: 'POST',
      path: target.pathname,
      agent,
      headers: {
        ...job.headers,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(payload),
        accept: stream ? 'text/event-stream' : 'application/json',
      },
    },
    onResponse,
  )
  req.on('error', onError)
  req.end(payload)
  return req
}

/**
 * A JSON request, its reply read to the last byte: `done` gets what went wrong (a status other
 * than 200, an empty reply, a socket error) or nothing, and the milliseconds from send to the end.
 */
function sendJson(agent: Agent, payload: string, done: (failure: string | undefined, ms: number) => void): void {
  const t0 = performance.now()
  send(
    agent,
    payload,
    false,
    (res) => {
      let size = 0
      res.on('data', (c: Buffer) => (size += c.length))
      res.on('end', () => {
        const ms = performance.now() - t0
        done(res.statusCode !== 200 || size === 0 ? `status ${res.statusCode}` : undefined, ms)
      })
    },
    (error) => done(error.code ?? error.message, performance.now() - t0),
  )
}

// ---------- statistics ----------

// ---------- JSON, closed loop ----------

async function jsonSeq(): Promise<JsonSeqResult> {
  const concurrency = job.concurrency ?? 1
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const latencies: number[] = []
  const errors: string[] = []
  const warmup = job.warmup ?? 0
  const thinkMs = job.thinkMs ?? 0
  let bodyChars = 0
  let next = 0
  const total = warmup + (job.count ?? 0)
  const deadline = performance.now() + HARD_LIMIT_MS
  const started = performance.now()
  let measuredStart = 0
  const one = (): Promise<void> =>
    new Promise((resolve) => {
      const n = next++
      if (n === warmup) measuredStart = performance.now()
      const payload = bodyOf(n, false)
      if (n >= warmup) bodyChars += payload.length
      sendJson(agent, payload, (failure, ms) => {
        if (failure !== undefined) errors.push(failure)
        else if (n >= warmup) latencies.push(ms)
        resolve()
      })
    })
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total && performance.now() < deadline) {
        await one()
        if (thinkMs > 0) await new Promise((r) => setTimeout(r, thinkMs))
      }
    }),
  )
  const measuredMs = performance.now() - (measuredStart || started)
  agent.destroy()
  return { latency: summary(latencies), bodyBytes: Math.round(bodyChars / Math.max(1, next - warmup)), completed: latencies.length, rate: Math.round((latencies.length / measuredMs) * 1000), errors: errors.length, errorSample: errors.slice(0, 3) }
}

// ---------- JSON, open loop at a fixed rate ----------

async function jsonRate(): Promise<JsonRateResult> {
  const rate = job.rate ?? 0
  const durationMs = job.durationMs ?? 0
  const warmupMs = job.warmupMs ?? 500
  const agent = new Agent({ keepAlive: true, maxSockets: job.maxSockets ?? 512, scheduling: 'lifo' })
  const latencies: number[] = []
  const lags: number[] = []
  const errors: string[] = []
  let sent = 0
  let inFlight = 0
  const maxInFlight = job.maxInFlight ?? 4000
  let skipped = 0
  const t0 = performance.now()
  const total = Math.round((rate * (warmupMs + durationMs)) / 1000)
  const interval = 1000 / rate
  await new Promise<void>((resolve) => {
    let finished = false
    const maybeDone = (): void => {
      if (!finished && sent + skipped >= total && inFlight === 0) {
        finished = true
        clearTimeout(guard)
        resolve()
      }
    }
    // Whatever happens, the job ends: requests still open after the schedule + 10 s count as errors.
    const guard = setTimeout(() => {
      errors.push(`${inFlight} requests unanswered 10 s after the schedule ended`)
      finished = true
      resolve()
    }, warmupMs + durationMs + 10_000)
    const pump = (): void => {
      const now = performance.now()
      while (sent + skipped < total && t0 + (sent + skipped) * interval <= now) {
        const k = sent + skipped
        if (inFlight >= maxInFlight) {
          skipped++
          continue
        }
        const intended = t0 + k * interval
        const measured = intended - t0 >= warmupMs
        const payload = bodyOf(k, false)
        const start = performance.now()
        if (measured) lags.push(start - intended)
        inFlight++
        sent++
        sendJson(agent, payload, (failure, ms) => {
          inFlight--
          if (failure !== undefined) errors.push(failure)
          else if (measured) latencies.push(ms)
          maybeDone()
        })
      }
      if (sent + skipped < total) setTimeout(pump, Math.max(0, t0 + (sent + skipped) * interval - performance.now()))
      else maybeDone()
    }
    pump()
  })
  agent.destroy()
  const measuredSent = lags.length
  return {
    rate,
    latency: summary(latencies),
    scheduleLag: summary(lags),
    completed: latencies.length,
    sent: measuredSent,
    // Requests the schedule asked for in the measured window and that got a 200 reply.
    achievedRate: Math.round((latencies.length / durationMs) * 1000),
    skipped,
    errors: errors.length,
    errorSample: errors.slice(0, 3),
  }
}

// ---------- streams ----------

/**
 * How each API's stream says what the load generator checks, as text in a frame's data: a content
 * delta (the text ` t<i>` follows the mark), the finish, the end of the stream, an error.
 */
const STREAM_MARKS: Record<Api, { content: string; finish: string; done: string; error: string }> = {
  chat: { content: '"content":" t', finish: '"finish_reason":"stop"', done: '[DONE]', error: '"error"' },
  responses: { content: '"delta":" t', finish: '"type":"response.completed"', done: '"type":"response.completed"', error: '"type":"response.failed"' },
  messages: { content: '"text":" t', finish: '"stop_reason":"end_turn"', done: '"type":"message_stop"', error: '"type":"error"' },
}
const MARKS = STREAM_MARKS[job.api ?? 'chat']
const CONTENT_MARK = MARKS.content

async function streams(): Promise<StreamResult> {
  const concurrency = job.concurrency ?? 1
  const durationMs = job.durationMs ?? 0
  const deltas = job.deltas ?? 64
  const intervalMs = job.intervalMs ?? 20
  const lateMs = job.lateMs ?? 10
  const rampMs = job.rampMs ?? 1000
  const thinkMs = job.thinkMs ?? 0
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency + 16 })
  const ttft: number[] = []
  const gaps: number[] = []
  const lateness: number[] = []
  let streamsDone = 0
  let streamsOk = 0
  let lostStreams = 0
  let lateFrames = 0
  let frames = 0
  const failures: StreamFailure[] = []
  let seq = 0
  // The job's first `warmup` requests go first, one at a time, as JSON, and are not recorded: the
  // streams then carry what a JSON job measures after its own warm-up — turns of a conversation
  // whose history the contender has seen — rather than every user's first turn at once.
  for (const warmup = job.warmup ?? 0; seq < warmup; ) {
    const payload = bodyOf(seq++, false)
    await new Promise<void>((resolve) => sendJson(agent, payload, () => resolve()))
  }
  const t0 = performance.now()
  const hardDeadline = t0 + HARD_LIMIT_MS

  const oneStream = (): Promise<void> =>
    new Promise((resolve) => {
      const n = seq++
      const payload = bodyOf(n, true)
      const sentAt = performance.now()
      let last = -1
      let count = 0
      let inOrder = true
      let sawFinish = false
      let sawDone = false
      let errorEvent = false
      let buffer = ''
      let settled = false
      const finish = (status: number | undefined, why: string): void => {
        if (settled) return
        settled = true
        streamsDone++
        const ok = status === 200 && count === deltas && inOrder && sawFinish && sawDone && !errorEvent
        if (ok) streamsOk++
        else {
          lostStreams++
          if (failures.length < 5) failures.push({ status, deltas: count, inOrder, sawFinish, sawDone, errorEvent, why })
        }
        resolve()
      }
      const frame = (event: string, now: number): void => {
        // A named event (Responses, Messages) has its data on the line after `event: …`.
        let text = event
        if (!text.startsWith('data: ')) {
          const at = text.indexOf('\ndata: ')
          if (at === -1) return
          text = text.slice(at + 1)
        }
        if (text === 'data: [DONE]') {
          sawDone = true
          return
        }
        const at = text.indexOf(CONTENT_MARK)
        if (at !== -1) {
          const end = text.indexOf('"', at + CONTENT_MARK.length)
          const index = Number(text.slice(at + CONTENT_MARK.length, end))
          if (index !== count) inOrder = false
          if (count === 0) ttft.push(now - sentAt)
          else gaps.push(now - last)
          const late = now - sentAt - count * intervalMs
          lateness.push(late)
          if (late > lateMs) lateFrames++
          last = now
          count++
          frames++
          return
        }
        if (text.includes(MARKS.finish)) sawFinish = true
        if (MARKS.done !== '[DONE]' && text.includes(MARKS.done)) sawDone = true
        if (text.includes(MARKS.error)) errorEvent = true
      }
      const req = send(
        agent,
        payload,
        true,
        (res) => {
          res.setEncoding('latin1') // the frames are ASCII; latin1 decodes cheapest
          res.on('data', (chunk: string) => {
            const now = performance.now()
            buffer += chunk
            let cut
            while ((cut = buffer.indexOf('\n\n')) !== -1) {
              frame(buffer.charCodeAt(0) === 10 || buffer.charCodeAt(0) === 13 ? buffer.slice(0, cut).trimStart() : buffer.slice(0, cut), now)
              buffer = buffer.slice(cut + 2)
            }
          })
          res.on('end', () => finish(res.statusCode, 'ended'))
          res.on('error', (e: ErrorWithCode) => finish(res.statusCode, e.code ?? e.message))
          res.on('close', () => finish(res.statusCode, 'closed'))
        },
        (error) => finish(0, error.code ?? error.message),
      )
      // A stream that hangs counts as lost; the job never outlives its bound.
      const cutoff = setTimeout(() => {
        req.destroy()
        finish(0, 'timeout')
      }, Math.max(1000, deltas * intervalMs * 5 + 5000))
      req.on('close', () => clearTimeout(cutoff))
    })

  await Promise.all(
    Array.from({ length: concurrency }, async (_, u) => {
      await new Promise((r) => setTimeout(r, (u * rampMs) / concurrency))
      do {
        await oneStream()
        if (thinkMs > 0) await new Promise((r) => setTimeout(r, thinkMs))
      } while (performance.now() - t0 < durationMs && performance.now() < hardDeadline)
    }),
  )
  agent.destroy()
  return {
    concurrency,
    streams: streamsDone,
    streamsOk,
    lostStreams,
    frames,
    lateFrames,
    ttft: summary(ttft),
    interChunk: summary(gaps),
    lateness: summary(lateness),
    failures,
  }
}

const kinds: Record<string, () => Promise<JobCommon>> = { 'json-seq': jsonSeq, 'json-rate': jsonRate, stream: streams }
const run = kinds[job.kind]
if (run === undefined) throw new Error(`unknown job kind ${String(job.kind)}`)
const killSwitch = setTimeout(() => {
  process.stdout.write(JSON.stringify({ error: `load job exceeded ${HARD_LIMIT_MS} ms` }) + '\n')
  process.exit(2)
}, HARD_LIMIT_MS + 15_000)
killSwitch.unref()
const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()
const cpuStart = process.cpuUsage()
const wallStart = performance.now()
const result = await run()
const cpu = process.cpuUsage(cpuStart)
// The load generator's own CPU, in cores: near 1.0 means it, not the contender, may be the limit.
result.loadEventLoopDelayMs = { p99: Math.round(loopDelay.percentile(99) / 1e4) / 100, max: Math.round(loopDelay.max / 1e4) / 100 }
result.wallMs = Math.round(performance.now() - wallStart)
result.loadCpuCores = Math.round(((cpu.user + cpu.system) / 1000 / (performance.now() - wallStart)) * 100) / 100
process.stdout.write(JSON.stringify(result) + '\n')
process.exit(0)
