#!/usr/bin/env node
// The independent harness's topology (docs/benchmark.md#two-shapes): the fake model server and the
// bare proxy in ONE process, the proxy forwarding to the fake server over loopback. Mortar, in its
// own process, forwards to the same fake server. The proxy's two hops then stay inside one event
// loop, while Mortar's cross into another process and back: the floor loses the process switches
// a real deployment has.
//
// Usage: node pair.mjs [--fake-port 0] [--bare-port 0] [--deltas 64] [--interval-ms 20]
// Prints one JSON line {"ready":true,"fakePort":N,"barePort":M} on stdout once both listen.
import { parseArgs } from 'node:util'
import { startBareProxy } from './bare-proxy.mjs'
import { startFakeUpstream } from './fake-upstream.mjs'

const { values } = parseArgs({
  options: {
    'fake-port': { type: 'string', default: '0' },
    'bare-port': { type: 'string', default: '0' },
    deltas: { type: 'string', default: '64' },
    'interval-ms': { type: 'string', default: '20' },
  },
})
const fake = await startFakeUpstream({ port: Number(values['fake-port']), deltas: Number(values.deltas), intervalMs: Number(values['interval-ms']) })
const fakePort = fake.address().port
const bare = await startBareProxy(`http://127.0.0.1:${fakePort}`, { port: Number(values['bare-port']) })
process.stdout.write(JSON.stringify({ ready: true, fakePort, barePort: bare.address().port }) + '\n')
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0))
