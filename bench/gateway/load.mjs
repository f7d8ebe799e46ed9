#!/usr/bin/env node
// The load generator: its own process, started by run.mjs once per measurement, loopback only.
//
//   node load.mjs '<job as JSON>'   → one JSON result line on stdout
//
// Jobs (all bounded in count and time):
//   json-seq    closed loop: `concurrency` clients (1 = sequential), `count` requests after `warmup`.
//   json-rate   open loop at a fixed `rate` for `durationMs`: request k is sent at t0 + k/rate, whether
//               or not earlier ones have answered, so a slow contender cannot slow the load down
//               (no coordinated omission). Latency is from that send to the response's last byte.
//               `scheduleLag` says how far behind its own schedule the load generator fell.
//   stream      `concurrency` virtual users, each opening streams back to back for `durationMs`
//               (starts spread over `rampMs`). Every stream is checked: status 200, all `deltas`
//               content deltas in order (` t0`, ` t1`, …), a finish chunk, `[DONE]`. Recorded: TTFT
//               (send → first content delta), inter-chunk gaps, and each delta's lateness: arrival −
//               (request sent + i × interval), i.e. how much later than with no delay at all it came
//               (the fake server sends delta i at its arrival + i × interval). A delta later than
//               `lateMs` is late — the first one too, so slow admission counts.
//
// Every job may name a `prompt` ({ shape, bytes }: prompts.mjs; the default shape when absent) and
// `first`, the number of its first request (the unique part of each body derives from it).
//
// Timing is performance.now() (monotonic, sub-microsecond). Latencies are in milliseconds.
import { Agent, request } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { bodyMaker } from './prompts.mjs'

const job = JSON.parse(process.argv[2] ?? '{}')
const target = new URL(job.url)
if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) throw new Error('load.mjs sends to loopback only')
const HARD_LIMIT_MS = job.hardLimitMs ?? 120_000

// Where this job's request numbers start: jobs given different ranges send different unique parts,
// so what one job's requests brought is not already cached for the next.
const FIRST = job.first ?? 0
// The body of request n, in the job's prompt shape (prompts.mjs), for JSON and for streams.
const bodies = { json: bodyMaker(job.prompt, false), stream: bodyMaker(job.prompt, true) }

/** The body of request n: built before its clock starts, so a large prompt's JSON.stringify is not timed. */
const bodyOf = (n, stream) => (stream ? bodies.stream : bodies.json)(FIRST + n)

function send(agent, payload, stream, onResponse, onError) {
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

// ---------- statistics ----------

function summary(values) {
  const n = values.length
  if (n === 0) return { n: 0 }
  const sorted = Float64Array.from(values).sort()
  const at = (q) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]
  let sum = 0
  for (const v of sorted) sum += v
  const r = (v) => Math.round(v * 1000) / 1000
  return { n, mean: r(sum / n), p50: r(at(0.5)), p90: r(at(0.9)), p99: r(at(0.99)), p999: r(at(0.999)), max: r(sorted[n - 1]) }
}

// ---------- JSON, closed loop ----------

async function jsonSeq() {
  const concurrency = job.concurrency ?? 1
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency })
  const latencies = []
  const errors = []
  let bodyChars = 0
  let next = 0
  const total = job.warmup + job.count
  const deadline = performance.now() + HARD_LIMIT_MS
  const started = performance.now()
  let measuredStart = 0
  const one = () =>
    new Promise((resolve) => {
      const n = next++
      if (n === job.warmup) measuredStart = performance.now()
      const payload = bodyOf(n, false)
      if (n >= job.warmup) bodyChars += payload.length
      const t0 = performance.now()
      send(
        agent,
        payload,
        false,
        (res) => {
          let size = 0
          res.on('data', (c) => (size += c.length))
          res.on('end', () => {
            const ms = performance.now() - t0
            if (res.statusCode !== 200 || size === 0) errors.push(`status ${res.statusCode}`)
            else if (n >= job.warmup) latencies.push(ms)
            resolve()
          })
        },
        (error) => {
          errors.push(error.code ?? error.message)
          resolve()
        },
      )
    })
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < total && performance.now() < deadline) await one()
    }),
  )
  const measuredMs = performance.now() - (measuredStart || started)
  agent.destroy()
  return { latency: summary(latencies), bodyBytes: Math.round(bodyChars / Math.max(1, next - job.warmup)), completed: latencies.length, rate: Math.round((latencies.length / measuredMs) * 1000), errors: errors.length, errorSample: errors.slice(0, 3) }
}

// ---------- JSON, open loop at a fixed rate ----------

async function jsonRate() {
  const { rate, durationMs } = job
  const warmupMs = job.warmupMs ?? 500
  const agent = new Agent({ keepAlive: true, maxSockets: job.maxSockets ?? 512, scheduling: 'lifo' })
  const latencies = []
  const lags = []
  const errors = []
  let sent = 0
  let inFlight = 0
  const maxInFlight = job.maxInFlight ?? 4000
  let skipped = 0
  const t0 = performance.now()
  const total = Math.round((rate * (warmupMs + durationMs)) / 1000)
  const interval = 1000 / rate
  await new Promise((resolve) => {
    let finished = false
    const maybeDone = () => {
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
    const pump = () => {
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
        send(
          agent,
          payload,
          false,
          (res) => {
            let size = 0
            res.on('data', (c) => (size += c.length))
            res.on('end', () => {
              const ms = performance.now() - start
              inFlight--
              if (res.statusCode !== 200 || size === 0) errors.push(`status ${res.statusCode}`)
              else if (measured) latencies.push(ms)
              maybeDone()
            })
          },
          (error) => {
            inFlight--
            errors.push(error.code ?? error.message)
            maybeDone()
          },
        )
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

const CONTENT_MARK = '"content":" t'

async function streams() {
  const { concurrency, durationMs, deltas, intervalMs } = job
  const lateMs = job.lateMs ?? 10
  const rampMs = job.rampMs ?? 1000
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency + 16 })
  const ttft = []
  const gaps = []
  const lateness = []
  let streamsDone = 0
  let streamsOk = 0
  let lostStreams = 0
  let lateFrames = 0
  let frames = 0
  const failures = []
  let seq = 0
  const t0 = performance.now()
  const hardDeadline = t0 + HARD_LIMIT_MS

  const oneStream = () =>
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
      const finish = (status, why) => {
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
      const frame = (text, now) => {
        if (!text.startsWith('data: ')) return
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
        if (text.includes('"finish_reason":"stop"')) sawFinish = true
        if (text.includes('"error"')) errorEvent = true
      }
      const req = send(
        agent,
        payload,
        true,
        (res) => {
          res.setEncoding('latin1') // the frames are ASCII; latin1 decodes cheapest
          res.on('data', (chunk) => {
            const now = performance.now()
            buffer += chunk
            let cut
            while ((cut = buffer.indexOf('\n\n')) !== -1) {
              frame(buffer.charCodeAt(0) === 10 || buffer.charCodeAt(0) === 13 ? buffer.slice(0, cut).trimStart() : buffer.slice(0, cut), now)
              buffer = buffer.slice(cut + 2)
            }
          })
          res.on('end', () => finish(res.statusCode, 'ended'))
          res.on('error', (e) => finish(res.statusCode, e.code ?? e.message))
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

const kinds = { 'json-seq': jsonSeq, 'json-rate': jsonRate, stream: streams }
const run = kinds[job.kind]
if (run === undefined) throw new Error(`unknown job kind ${job.kind}`)
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
