// Traffic capture's own work per exchange, timed in this process for the sweep's prompts
// (prompts.ts): the recorder's start (`begin`), the hand-offs from the request path (the body
// read, the model's decision, the body sent, the model server's reply) with the reply written,
// and the exchange's end (`close`: the record built, fitted and put in the memory store) — so a
// change to capture shows in capture, not in a whole-process number that the machine's other
// load moves. The request and response are Node's own objects, without a socket.
//
//   npx tsx bench/gateway/capture-stages.ts [--baseline DIR] [--count 3000] [--cells "stable 340 B,…"]
//
// --baseline DIR: a checkout of another commit (its src/ and its bench's prompts), for a
// before/after: both are loaded into this process and timed exchange by exchange in turn (which
// goes first alternates), so that both meet the process and the machine in the same state. Timed
// one after the other, the second ran faster: with this checkout as its own baseline, close at
// stable 340 B read 62 µs, then 41. Median / mean µs of the last `count` − 500 exchanges (the
// mean carries the garbage collector's share, once the store is full and evicting, as it is on a
// gateway that has run a while); every exchange has a fresh body, as a client sends it. The last
// column is the process's CPU over each checkout's exchanges (the request path's own work and the
// garbage collections that fall in them included; the checkouts share one heap), then again with
// capture `off`: their difference is what capture costs, its store kept full included.
import { isAscii } from 'node:buffer'
import { IncomingMessage, ServerResponse } from 'node:http'
import { Socket } from 'node:net'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { printStagesBeforeAfter, ROOT } from './lib'
import { SMALL_COMPLETION } from './prompts'
import { cellName, cellsNamed } from './sweep'

type Prompts = typeof import('./prompts')
type Capture = typeof import('../../src/gateway/capture/traffic-capture')
type Recorder = typeof import('../../src/gateway/capture/exchange-recorder')
type Store = typeof import('../../src/gateway/capture/memory-store')
type Limits = typeof import('../../src/gateway/capture/capture-limits')
type Splice = typeof import('../../src/gateway/http/json-splice')

const { values: opts } = parseArgs({ options: { baseline: { type: 'string' }, count: { type: 'string', default: '3000' }, cells: { type: 'string' } } })
const COUNT = Number(opts.count)
const CELLS = cellsNamed(opts.cells)
const WARM = 500
const REPLY = SMALL_COMPLETION
const KEY = 'mk_live_' + 'a'.repeat(40)
/** What the route reports at a generation's end, for the exchange's record. */
const generationRecord = (n: number) => ({
  id: `gen_${n}`,
  org: 'default',
  session: 's',
  model: 'm',
  deployment: 'upstream',
  upstream: '127.0.0.1:9',
  stream: false,
  outcome: 'finished' as const,
  finishReason: 'stop' as const,
  finishReasonDerived: false,
  errorCode: undefined,
  usage: { prompt_tokens: 10, completion_tokens: 3, total_tokens: 13 },
  usageSource: 'upstream' as const,
})
const RAW_HEADERS = ['Host', '127.0.0.1:7313', 'Authorization', `Bearer ${KEY}`, 'Content-Type', 'application/json', 'Connection', 'keep-alive', 'User-Agent', 'bench']
const UPSTREAM_HEADERS = ['Content-Type', 'application/json', 'Content-Length', String(REPLY.length), 'Date', 'Tue, 01 Dec 2026 16:00:00 GMT', 'Connection', 'keep-alive']

type StageTimes = Record<(typeof STAGES)[number], number>
const STAGES = ['begin', 'hand-offs + reply', 'close'] as const

/** A checkout's capture, loaded from its src/ (and its bench's prompts): exchanges of a prompt shape, capture `memory` (a 64 MiB store of its own, full once warmed up) or `off`. */
async function loadCheckout(root: string) {
  const load = async <T>(path: string): Promise<T> => (await import(join(root, path))) as T
  const { bodyMaker } = await load<Prompts>('bench/gateway/prompts.ts')
  const { TrafficCapture } = await load<Capture>('src/gateway/capture/traffic-capture.ts')
  const { recorderOf } = await load<Recorder>('src/gateway/capture/exchange-recorder.ts')
  const { MemoryStore } = await load<Store>('src/gateway/capture/memory-store.ts')
  const { DEFAULT_MEMORY_LIMITS } = await load<Limits>('src/gateway/capture/capture-limits.ts')
  const { spliceClientMembers, outgoingText, outgoingBytes } = await load<Splice>('src/gateway/http/json-splice.ts')
  const limits = DEFAULT_MEMORY_LIMITS
  return (cell: (typeof CELLS)[number], mode: 'memory' | 'off') => {
    const capture = new TrafficCapture(mode === 'memory' ? { mode, limits, store: new MemoryStore(limits) } : { mode, limits, store: undefined })
    const make = bodyMaker({ shape: cell.shape, bytes: cell.bytes }, false)
    /** Exchange `n`, its stages timed (ms). */
    const exchange = (n: number): StageTimes => {
      const text = make(7_000_000 + n)
      const raw = Buffer.from(text)
      const req = new IncomingMessage(new Socket())
      req.method = 'POST'
      req.url = '/v1/chat/completions'
      req.rawHeaders = RAW_HEADERS
      req.headers = { host: '127.0.0.1:7313', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', connection: 'keep-alive', 'user-agent': 'bench' }
      const res = new ServerResponse(req)
      let at = performance.now()
      capture.begin(req, res)
      const recorder = recorderOf(req)
      if (recorder === undefined && mode === 'memory') throw new Error('not captured')
      let now = performance.now()
      const begin = now - at
      // What the request path does besides capture (decode, parse, the body sent) is not timed.
      const decoded = raw.toString('utf8')
      const value = JSON.parse(decoded) as Record<string, unknown>
      const source = { value, text: decoded, raw }
      const spliced = spliceClientMembers(source, { ...value, model: 'm', max_tokens: 16 }, ['messages', 'tools'], JSON.stringify)
      const body = spliced ?? JSON.stringify({ ...value, model: 'm', max_tokens: 16 })
      const encoded = outgoingBytes(body)
      // Encoded as the upstream backend does, before it hands the bytes to capture and the socket.
      const wire = typeof encoded === 'string' ? Buffer.from(encoded) : encoded
      const replyBytes = Buffer.from(REPLY)
      at = performance.now()
      // The hand-offs, as the body reader, the route and the upstream backend make them.
      if (recorder !== undefined) {
        recorder.requestBody = raw
        // As the body reader hands over a body it decoded (telling whether its bytes are ASCII).
        if ('bodyDecoded' in recorder) recorder.bodyDecoded(decoded, raw, isAscii(raw))
        else (recorder as { requestBody: unknown }).requestBody = decoded
        recorder.identified({ keyId: 'key_1', keyName: 'bench', org: 'default', role: 'owner', dialect: null })
        recorder.decided({ model: 'm', deployment: 'upstream', session: 's', stream: false }, undefined)
        recorder.sent('127.0.0.1:9', outgoingText(body), wire)
        recorder.responded(200, UPSTREAM_HEADERS)
        recorder.receivedBody(replyBytes.toString('utf8'))
      }
      res.statusCode = 200
      res.setHeader('content-type', 'application/json')
      res.setHeader('x-request-id', `req_${n}`)
      res.end(REPLY)
      now = performance.now()
      const handOffs = now - at
      at = now
      // The route reports the generation's end; a recorder that has a decided generation builds its
      // record only then (or at the response's close, whichever comes last).
      if (recorder !== undefined && 'generationEnded' in recorder) recorder.generationEnded({ record: generationRecord(n), error: null })
      res.emit('close')
      return { begin, 'hand-offs + reply': handOffs, close: performance.now() - at }
    }
    return { exchange, close: () => capture.close() }
  }
}

const roots = opts.baseline === undefined ? [ROOT] : [opts.baseline, ROOT]
const checkouts = await Promise.all(roots.map(loadCheckout))
const results = roots.map((): Record<string, Record<string, string>> => ({}))
const stats = (xs: number[]): string => {
  const kept = xs.slice(WARM).sort((a, b) => a - b)
  const median = kept[Math.floor(kept.length / 2)] ?? NaN
  const mean = kept.reduce((sum, x) => sum + x, 0) / kept.length
  return `${(median * 1000).toFixed(1)} / ${(mean * 1000).toFixed(1)}`
}
for (const cell of CELLS) {
  const times = roots.map(() => Object.fromEntries(STAGES.map((stage) => [stage, [] as number[]])) as Record<(typeof STAGES)[number], number[]>)
  const cpuUs = { memory: roots.map(() => 0), off: roots.map(() => 0) }
  for (const mode of ['memory', 'off'] as const) {
    const runs = checkouts.map((open) => open(cell, mode))
    for (let n = 0; n < COUNT; n++) {
      for (let k = 0; k < runs.length; k++) {
        const i = (n + k) % runs.length
        const from = process.cpuUsage()
        const stages = runs[i]!.exchange(n)
        const used = process.cpuUsage(from)
        if (n >= WARM) cpuUs[mode][i]! += used.user + used.system
        if (mode === 'memory') for (const stage of STAGES) times[i]![stage].push(stages[stage])
      }
    }
    for (const run of runs) run.close()
  }
  roots.forEach((_, i) => {
    const perExchange = (mode: 'memory' | 'off') => (cpuUs[mode][i]! / (COUNT - WARM)).toFixed(0)
    results[i]![cellName(cell)] = {
      ...Object.fromEntries(STAGES.map((stage) => [stage, stats(times[i]![stage])])),
      'CPU per exchange, memory / off': `${perExchange('memory')} / ${perExchange('off')}`,
    }
  })
}

printStagesBeforeAfter(opts.baseline, [...STAGES, 'CPU per exchange, memory / off'], 'µs', results)
