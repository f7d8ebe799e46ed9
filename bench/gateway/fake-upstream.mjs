#!/usr/bin/env node
// The benchmark's model server: plain node:http, its own process, loopback only.
//
//   POST /v1/chat/completions   {"stream": false}  → one chat.completion object
//                               {"stream": true}   → SSE: a role chunk, then DELTAS content deltas
//                                                    INTERVAL_MS apart (the first at once), the finish
//                                                    chunk, the usage chunk if stream_options asks,
//                                                    then `data: [DONE]`.
//   GET  /health                → 200 (readiness)
//
// The shapes are OpenAI's (chat.completion / chat.completion.chunk). Delta i's content is ` t<i>`,
// so a client can check order and completeness without a JSON parse. Deadlines are computed from
// the request's arrival (delta i is due at t0 + i × interval), so the schedule does not drift.
// It listens with a backlog of 4,096, so bursts of new connections are never dropped here.
//
// Usage: node fake-upstream.mjs [--port 0] [--deltas 64] [--interval-ms 20]
// Prints one JSON line {"ready":true,"port":N} on stdout once it listens.
import { createServer } from 'node:http'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'

const isMain = import.meta.url === pathToFileURL(process.argv[1] ?? '').href
const { values } = parseArgs({
  args: isMain ? process.argv.slice(2) : [],
  strict: isMain,
  options: {
    port: { type: 'string', default: '0' },
    deltas: { type: 'string', default: '64' },
    'interval-ms': { type: 'string', default: '20' },
  },
})
// One fake server per process (its timer wheel and statistics are the module's): set at start.
let DELTAS = Number(values.deltas)
let INTERVAL_MS = Number(values['interval-ms'])
const MODEL = 'Qwen/Qwen2.5-7B-Instruct'
const SYSTEM_FINGERPRINT = 'fp_bench'

let pieces = []
let wholeText = ''
function setShape(deltas, intervalMs) {
  DELTAS = deltas
  INTERVAL_MS = intervalMs
  pieces = Array.from({ length: DELTAS }, (_, i) => ` t${i}`)
  wholeText = pieces.join('')
}
setShape(DELTAS, INTERVAL_MS)
let seq = 0

function completionId() {
  seq = (seq + 1) % 1e12
  return 'chatcmpl-fake' + seq.toString(16).padStart(12, '0')
}

function usage(promptTokens) {
  return { prompt_tokens: promptTokens, completion_tokens: DELTAS, total_tokens: promptTokens + DELTAS }
}

function replyJson(res, body) {
  const promptTokens = estimatePromptTokens(body)
  // A JSON reply honours max_tokens as a real server does (a delta ` t<i>` counts as up to 4 tokens),
  // so a gateway that checks the reply against it has nothing to cut. Streams always send them all.
  const maxTokens = Number.isInteger(body?.max_tokens) && body.max_tokens > 0 ? body.max_tokens : Infinity
  const shown = Math.min(DELTAS, Math.max(1, Math.floor(maxTokens / 4)))
  const content = shown === DELTAS ? wholeText : pieces.slice(0, shown).join('')
  const payload = JSON.stringify({
    id: completionId(),
    object: 'chat.completion',
    created: Math.floor(Date.now() / 1000),
    model: MODEL,
    system_fingerprint: SYSTEM_FINGERPRINT,
    choices: [{ index: 0, message: { role: 'assistant', content, refusal: null }, logprobs: null, finish_reason: 'stop' }],
    usage: { ...usage(promptTokens), completion_tokens: shown, total_tokens: promptTokens + shown },
  })
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) })
  res.end(payload)
}

// Streams are paced by one timer wheel with 1 ms slots rather than a timer each: at 1,000
// concurrent streams (50,000 deltas a second) the fake server must stay cheap, or it, not the
// contender, would be what makes frames late. A delta is written in the first tick at or after its
// due time. The frames are string templates (the same bytes JSON.stringify would give).
// How late the server itself writes deltas (whole ms past due; the last slot collects the rest),
// and its event-loop delay: GET /stats tells the benchmark whether the fake server kept up.
const LATENESS_SLOTS = 1000
let lateness = new Uint32Array(LATENESS_SLOTS)
const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()

function stats() {
  let n = 0
  for (const c of lateness) n += c
  const at = (q) => {
    let seen = 0
    for (let i = 0; i < LATENESS_SLOTS; i++) if ((seen += lateness[i]) >= q * n) return i
    return LATENESS_SLOTS
  }
  const ms = (ns) => Math.round(ns / 1e4) / 100
  return {
    deltas: n,
    lateByMs: { p50: at(0.5), p99: at(0.99), p999: at(0.999), over10: n - lateness.slice(0, 11).reduce((a, b) => a + b, 0) },
    eventLoopDelayMs: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) },
  }
}

const wheel = new Map() // slot (whole ms) → streams due then
let cursor = Math.floor(performance.now())
let pending = 0
let ticking = false

function schedule(stream, due) {
  const slot = Math.max(Math.ceil(due), cursor)
  let bucket = wheel.get(slot)
  if (bucket === undefined) wheel.set(slot, (bucket = []))
  bucket.push(stream)
  pending++
  if (!ticking) {
    ticking = true
    cursor = Math.min(slot, Math.floor(performance.now()))
    setTimeout(tick, 1)
  }
}

function tick() {
  const last = Math.floor(performance.now())
  for (; cursor <= last; cursor++) {
    const bucket = wheel.get(cursor)
    if (bucket === undefined) continue
    wheel.delete(cursor)
    pending -= bucket.length
    for (const stream of bucket) stream.next()
  }
  if (pending > 0) setTimeout(tick, 1)
  else ticking = false
}

function replyStream(res, body, t0) {
  const id = completionId()
  const created = Math.floor(Date.now() / 1000)
  const includeUsage = body?.stream_options?.include_usage === true
  const promptTokens = estimatePromptTokens(body)
  const head = `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"${MODEL}","system_fingerprint":"${SYSTEM_FINGERPRINT}","choices":[{"index":0,`
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' })
  res.write(head + '"delta":{"role":"assistant","content":""},"finish_reason":null,"logprobs":null}]}\n\n')
  const stream = {
    i: 0,
    due: t0,
    next() {
      if (res.destroyed) return
      lateness[Math.min(LATENESS_SLOTS - 1, Math.floor(performance.now() - stream.due))]++
      const i = stream.i++
      res.write(head + `"delta":{"content":"${pieces[i]}"},"finish_reason":null,"logprobs":null}]}\n\n`)
      if (stream.i < DELTAS) return schedule(stream, (stream.due = t0 + stream.i * INTERVAL_MS))
      let tail = head + '"delta":{},"finish_reason":"stop","logprobs":null}]}\n\n'
      if (includeUsage) {
        tail += `data: {"id":"${id}","object":"chat.completion.chunk","created":${created},"model":"${MODEL}","system_fingerprint":"${SYSTEM_FINGERPRINT}","choices":[],"usage":${JSON.stringify(usage(promptTokens))}}\n\n`
      }
      res.end(tail + 'data: [DONE]\n\n')
    },
  }
  stream.next()
}

/** Roughly 4 bytes a token: the fake server has no tokenizer, and no contender checks this number. */
function estimatePromptTokens(body) {
  let bytes = 0
  for (const m of Array.isArray(body?.messages) ? body.messages : []) bytes += typeof m?.content === 'string' ? m.content.length : 0
  return Math.max(1, Math.round(bytes / 4))
}

const handle = (req, res) => {
  if (req.method === 'GET' && req.url.startsWith('/stats')) {
    const body = JSON.stringify(stats())
    if (req.url.includes('reset')) {
      lateness = new Uint32Array(LATENESS_SLOTS)
      loopDelay.reset()
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(body)
    return
  }
  if (req.method === 'GET' && (req.url === '/health' || req.url === '/v1/health')) {
    res.writeHead(200, { 'content-type': 'text/plain' })
    res.end('ok')
    return
  }
  if (req.method !== 'POST' || !req.url.endsWith('/chat/completions')) {
    res.writeHead(404, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ error: { message: `no route ${req.method} ${req.url}`, type: 'invalid_request_error' } }))
    return
  }
  const t0 = performance.now()
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    let body
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: { message: 'invalid JSON', type: 'invalid_request_error' } }))
      return
    }
    if (body.stream === true) replyStream(res, body, t0)
    else replyJson(res, body)
  })
}

/**
 * The fake model server, listening on 127.0.0.1 (`port` 0 picks one): resolves once it listens.
 * One per process (run.mjs starts it as its own process; pair.mjs beside the bare proxy).
 */
export function startFakeUpstream({ port = 0, deltas = 64, intervalMs = 20 } = {}) {
  setShape(deltas, intervalMs)
  const server = createServer({ keepAliveTimeout: 60_000, noDelay: true }, handle)
  server.headersTimeout = 0
  server.requestTimeout = 0
  return new Promise((resolve) => server.listen({ port, host: '127.0.0.1', backlog: 4096 }, () => resolve(server)))
}

if (isMain) {
  const server = await startFakeUpstream({ port: Number(values.port), deltas: DELTAS, intervalMs: INTERVAL_MS })
  process.stdout.write(JSON.stringify({ ready: true, port: server.address().port }) + '\n')
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0))
}
