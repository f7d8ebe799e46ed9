/**
 * The fake model server as its own process, for the benchmark and the soak: loopback only, no
 * request records (they would be what grows), a backlog of 4,096 so bursts of new connections are
 * never dropped here, and kept-alive connections held for a minute.
 *
 *   node --import tsx src/test-kit/fake-model-server/cli.ts [--port 0] [--family plain]
 *     [--deltas 64] [--interval-ms 20] [--content ' t{i}'] [--model NAME] [--context-window N]
 *     [--honour-max-tokens]   (a JSON completion keeps max_tokens / 4 pieces: FakeBehavior.honourMaxTokens)
 *     [--speaks-responses]    (POST /v1/responses answered natively: FakeBehavior.speaksResponses)
 *
 * Streams are a role chunk, then `--deltas` content pieces `--interval-ms` apart (the first at
 * once; deadlines from the stream's start, so the schedule does not drift), the finish chunk, the
 * usage chunk when stream_options asks, then `data: [DONE]`. Piece i's content is `--content` with
 * `{i}` replaced by i, so a client can check order and completeness without a JSON parse.
 *
 *   GET /health, /v1/health   200 (readiness)
 *   GET /stats[?reset]        how late the server wrote pieces and its event-loop delay, so a
 *                             benchmark can tell whether the fake server kept up (reset after)
 *
 * Prints one JSON line {"ready":true,"port":N} on stdout once it listens.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { SERVER_FAMILY_NAMES, type ServerFamilyName } from './server-families'
import { processFakeBehavior } from './process-behavior'
import { startFakeModelServer } from './server'

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '0' },
    family: { type: 'string', default: 'plain' },
    deltas: { type: 'string', default: '64' },
    'interval-ms': { type: 'string', default: '20' },
    content: { type: 'string', default: ' t{i}' },
    model: { type: 'string' },
    'context-window': { type: 'string' },
    'honour-max-tokens': { type: 'boolean', default: false },
    'speaks-responses': { type: 'boolean', default: false },
  },
})

function familyNamed(name: string): ServerFamilyName {
  const family = SERVER_FAMILY_NAMES.find((known) => known === name)
  if (family === undefined) throw new Error(`--family must be one of ${SERVER_FAMILY_NAMES.join(', ')}`)
  return family
}
const family = familyNamed(values.family)
const deltas = Number(values.deltas)
const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()
const ms = (ns: number): number => Math.round(ns / 1e4) / 100
const jsonAnswer = (body: unknown) => ({ status: 200, contentType: 'application/json', body: JSON.stringify(body) })

async function main(): Promise<void> {
const fake = await startFakeModelServer(
  processFakeBehavior({
    family,
    deltas,
    intervalMs: Number(values['interval-ms']),
    content: values.content,
    model: values.model ?? null,
    contextWindow: values['context-window'] !== undefined ? Number(values['context-window']) : null,
    honourMaxTokens: values['honour-max-tokens'],
    speaksResponses: values['speaks-responses'],
  }),
  {
    port: Number(values.port),
    record: false,
    backlog: 4096,
    keepAliveTimeoutMs: 60_000,
    answer(method, pathname, query) {
      if (method !== 'GET') return undefined
      if (pathname === '/health' || pathname === '/v1/health') return { status: 200, contentType: 'text/plain', body: 'ok' }
      if (pathname !== '/stats') return undefined
      const late = fake.lateness()
      const stats = {
        deltas: late.wakes,
        lateByMs: { p50: late.p50, p99: late.p99, p999: late.p999, over10: late.over10 },
        eventLoopDelayMs: { p50: ms(loopDelay.percentile(50)), p99: ms(loopDelay.percentile(99)), max: ms(loopDelay.max) },
      }
      if (query.has('reset')) {
        fake.resetLateness()
        loopDelay.reset()
      }
      return jsonAnswer(stats)
    },
  },
)
process.stdout.write(JSON.stringify({ ready: true, port: fake.port }) + '\n')
}

void main()
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
