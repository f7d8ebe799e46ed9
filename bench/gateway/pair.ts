// The independent harness's topology (docs/benchmark.md#two-shapes): the fake model server and the
// bare proxy in ONE process, the proxy forwarding to the fake server over loopback. Mortar, in its
// own process, forwards to the same fake server. The proxy's two hops then stay inside one event
// loop, while Mortar's cross into another process and back: the floor loses the process switches
// a real deployment has.
//
// Usage: node --import tsx pair.ts [--fake-port 0] [--bare-port 0] [--deltas 64] [--interval-ms 20]
// (the fake server is the project's, src/test-kit/fake-model-server, configured as run.ts's)
// Prints one JSON line {"ready":true,"fakePort":N,"barePort":M} on stdout once both listen.
import type { AddressInfo } from 'node:net'
import { parseArgs } from 'node:util'
import { startFakeModelServer } from '../../src/test-kit/fake-model-server/index'
import { processFakeBehavior } from '../../src/test-kit/fake-model-server/process-behavior'
import { startBareProxy } from './bare-proxy'

const { values } = parseArgs({
  options: {
    'fake-port': { type: 'string', default: '0' },
    'bare-port': { type: 'string', default: '0' },
    deltas: { type: 'string', default: '64' },
    'interval-ms': { type: 'string', default: '20' },
  },
})
const behavior = processFakeBehavior({
  family: 'openai',
  deltas: Number(values.deltas),
  intervalMs: Number(values['interval-ms']),
  content: ' t{i}',
  model: 'Qwen/Qwen2.5-7B-Instruct',
  contextWindow: null,
  honourMaxTokens: true,
  speaksResponses: true,
})
const health = { status: 200, contentType: 'text/plain', body: 'ok' }
const fake = await startFakeModelServer(behavior, {
  port: Number(values['fake-port']),
  record: false,
  backlog: 4096,
  keepAliveTimeoutMs: 60_000,
  answer: (method, pathname) => (method === 'GET' && (pathname === '/health' || pathname === '/v1/health') ? health : undefined),
})
const bare = await startBareProxy(`http://127.0.0.1:${fake.port}`, { port: Number(values['bare-port']) })
process.stdout.write(JSON.stringify({ ready: true, fakePort: fake.port, barePort: (bare.address() as AddressInfo).port }) + '\n')
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(0))
