/**
 * The soak: CONCURRENCY streams (default 1,000) for SECONDS (default 60) through the gateway to a
 * paced model server, with traffic capture CAPTURE (default memory, the gateway's default; or off).
 * Every client must get every frame in order and [DONE]; the capture store must never exceed its
 * byte budget; after the load (and clearing the store), the gateway must hold no generation,
 * socket, timer or subscriber, and its memory must return to its idle level.
 * Run: `npm run soak` (or CONCURRENCY=200 SECONDS=10 CAPTURE=off npm run soak).
 * Everything listens on 127.0.0.1; the load is bounded in count and time and stops by itself.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startGatewayServer } from '../../src/gateway/server'
import { captureModeSchema } from '../../src/shared/api/traffic'

const here = __dirname
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024)

function child(args: string[]) {
  const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: process.env })
  const firstLine = new Promise<string>((resolve) => createInterface({ input: proc.stdout }).once('line', resolve))
  return { proc, firstLine }
}

async function settle(): Promise<void> {
  // Let closed sockets and finished timers go, then collect garbage if exposed (--expose-gc).
  for (let i = 0; i < 20; i++) await new Promise((resolve) => setTimeout(resolve, 50))
  ;(globalThis as { gc?: () => void }).gc?.()
}

function handles(): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const name of process.getActiveResourcesInfo()) counts[name] = (counts[name] ?? 0) + 1
  return counts
}

async function main() {
  // The project's fake model server, paced: DELTAS pieces DELAY_MS apart, numbered `<i>` so a client
  // can check it got every one, in order.
  const upstream = child([
    '--import',
    'tsx',
    join(here, '..', '..', 'src', 'test-kit', 'fake-model-server', 'cli.ts'),
    '--deltas',
    process.env.DELTAS ?? '32',
    '--interval-ms',
    process.env.DELAY_MS ?? '100',
    '--content',
    '<{i}>',
  ])
  const upstreamPort = (JSON.parse(await upstream.firstLine) as { port: number }).port
  const home = mkdtempSync(join(tmpdir(), 'mortar-soak-'))
  const capture = captureModeSchema.parse(process.env.CAPTURE ?? 'memory')
  const server = await startGatewayServer({
    host: '127.0.0.1',
    port: 0,
    home,
    capture,
    upstream: { modelId: 'Qwen/Qwen2.5-7B-Instruct', urls: [`http://127.0.0.1:${upstreamPort}/v1`] },
  })
  const key = server.keys.create({ name: 'soak' }).key
  // Warm up (tokenizer caches, connection pools), then take the idle baseline.
  await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { Authorization: `Bearer ${key}` }, body: JSON.stringify({ messages: [{ role: 'user', content: 'warm' }] }) }).then((r) => r.text())
  await settle()
  const idle = { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, handles: handles() }

  let peakRss = 0
  let peakStoreBytes = 0
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss)
    peakStoreBytes = Math.max(peakStoreBytes, server.gateway.capture.status().bytes)
  }, 250)
  const started = Date.now()
  const load = child(['--import', 'tsx', join(here, 'load.ts'), server.url, key])
  const totals = JSON.parse(await load.firstLine) as { streams: number; complete: number; broken: number; firstProblem: unknown; problems: Record<string, number> }
  clearInterval(sampler)
  const elapsed = (Date.now() - started) / 1000

  await settle()
  const store = server.gateway.capture.status()
  // What the store holds is kept on purpose; clear it, so what is left is what would be a leak.
  server.gateway.capture.clear({ org: 'default', unattributed: true })
  await settle()
  const connections = await server.connections()
  const after = { rss: process.memoryUsage().rss, heap: process.memoryUsage().heapUsed, handles: handles(), stats: server.gateway.stats(), connections }

  const report = {
    concurrency: Number(process.env.CONCURRENCY ?? 1000),
    seconds: Math.round(elapsed),
    streams: totals.streams,
    complete: totals.complete,
    broken: totals.broken,
    firstProblem: totals.firstProblem,
    problems: totals.problems,
    capture: {
      mode: store.mode,
      budgetMb: mb(store.limits.max_bytes),
      maxExchanges: store.limits.max_exchanges,
      peakStoreMb: Math.round((peakStoreBytes / 1024 / 1024) * 10) / 10,
      heldAtEnd: { exchanges: store.exchanges, mb: Math.round((store.bytes / 1024 / 1024) * 10) / 10 },
      evicted: store.evicted,
    },
    rssMb: { idle: mb(idle.rss), peak: mb(peakRss), after: mb(after.rss) },
    heapMb: { idle: mb(idle.heap), after: mb(after.heap) },
    leftBehind: { ...after.stats, openConnections: after.connections },
    handles: { idle: idle.handles, after: after.handles },
  }
  process.stdout.write(JSON.stringify(report, null, 2) + '\n')
  const clean =
    totals.broken === 0 &&
    totals.complete > 0 &&
    after.stats.liveGenerations === 0 &&
    after.stats.dedupeGroups === 0 &&
    after.stats.telemetrySubscribers === 0 &&
    after.stats.capturing === 0 &&
    peakStoreBytes <= store.limits.max_bytes &&
    after.connections === 0 &&
    (after.handles.Timeout ?? 0) <= (idle.handles.Timeout ?? 0) &&
    after.heap < idle.heap * 1.5 + 20 * 1024 * 1024
  process.stdout.write(clean ? 'soak: PASS\n' : 'soak: FAIL\n')

  await server.close()
  upstream.proc.kill()
  rmSync(home, { recursive: true, force: true })
  process.exitCode = clean ? 0 : 1
}

void main()
