// The fake model server and the contenders, each its own process on 127.0.0.1.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, HERE, listeningAddresses, NODE, PORTKEY_START, ROOT, startProcess, TSX, waitReady } from './lib'
import type { Contender, Upstream } from './types'

export const CONTENDERS = ['direct', 'bare', 'mortar', 'mortar-capture-off', 'portkey', 'mortar-baseline']
// The independent harness's topology (pair.ts): the fake server and the bare proxy in one process,
// and a Mortar of its own forwarding to that fake server.
export const PAIR_CONTENDERS = ['direct-1p', 'bare-1p', 'mortar-1p']
// `mortar` runs as installed, so with traffic capture in memory (the default); the same build with
// `--capture off` beside it shows what capture costs.
export const LABELS: Record<string, string> = {
  direct: 'direct',
  bare: 'bare proxy (floor)',
  mortar: 'Mortar',
  'mortar-capture-off': 'Mortar, capture off',
  portkey: 'Portkey',
  'mortar-baseline': 'Mortar, baseline build',
  'direct-1p': 'direct (one process)',
  'bare-1p': 'bare proxy in the fake server\'s process',
  'mortar-1p': 'Mortar (to that fake server)',
}
/** The context window Mortar is told the model has (128k tokens): every prompt is checked against it. */
export const CONTEXT_WINDOW = 131072

/** The project's one fake model server (src/test-kit/fake-model-server, run with tsx), as the benchmark configures it. */
export const FAKE_SERVER_CLI = join(ROOT, 'src', 'test-kit', 'fake-model-server', 'cli.ts')
/**
 * OpenAI's shapes, under the model id Mortar serves; JSON replies keep within max_tokens, as real
 * servers do; the Responses API answered natively, as vLLM does (the sweep's API cells).
 */
export const fakeServerArgs = ({ deltas, intervalMs }: { deltas: number; intervalMs: number }): string[] => ['--family', 'openai', '--model', 'Qwen/Qwen2.5-7B-Instruct', '--deltas', String(deltas), '--interval-ms', String(intervalMs), '--honour-max-tokens', '--speaks-responses']

export interface StartOptions {
  logDir: string
  deltas: number
  intervalMs: number
}

export async function startUpstream({ logDir, deltas, intervalMs }: StartOptions): Promise<Upstream> {
  const port = await freePort()
  const proc = startProcess('fake-upstream', NODE, [...TSX, FAKE_SERVER_CLI, '--port', String(port), ...fakeServerArgs({ deltas, intervalMs })], { logDir, cwd: ROOT })
  await waitReady(proc, `http://127.0.0.1:${port}/health`)
  return { proc, port, baseUrl: `http://127.0.0.1:${port}/v1` }
}

/**
 * The independent harness's pair (pair.ts): fake server and bare proxy in one process. Returns
 * the fake server as an upstream (for a Mortar of its own) and the two contenders.
 */
export async function startPair({ logDir, deltas, intervalMs }: StartOptions): Promise<{ upstream: Upstream; direct: Contender; bare: Contender }> {
  const fakePort = await freePort()
  const barePort = await freePort()
  const proc = startProcess('pair', NODE, [...TSX, join(HERE, 'pair.ts'), '--fake-port', String(fakePort), '--bare-port', String(barePort), '--deltas', String(deltas), '--interval-ms', String(intervalMs)], { logDir, cwd: ROOT })
  await waitReady(proc, `http://127.0.0.1:${barePort}/health`)
  const upstream = { proc, port: fakePort, baseUrl: `http://127.0.0.1:${fakePort}/v1` }
  return {
    upstream,
    direct: { id: 'direct-1p', proc, base: upstream.baseUrl, url: `${upstream.baseUrl}/chat/completions`, headers: {} },
    bare: { id: 'bare-1p', proc, base: `http://127.0.0.1:${barePort}/v1`, url: `http://127.0.0.1:${barePort}/v1/chat/completions`, headers: {} },
  }
}

/** (1) Straight to the model server: the baseline every "added" number subtracts. */
export function direct(upstream: Upstream): Contender {
  return { id: 'direct', proc: upstream.proc, base: upstream.baseUrl, url: `${upstream.baseUrl}/chat/completions`, headers: {} }
}

/** (2) The floor: a bare node:http pass-through proxy. */
export async function startBare(upstream: Upstream, { logDir }: { logDir: string }): Promise<Contender> {
  const port = await freePort()
  const proc = startProcess('bare-proxy', NODE, [...TSX, join(HERE, 'bare-proxy.ts'), '--port', String(port), '--upstream', `http://127.0.0.1:${upstream.port}`], { logDir })
  await waitReady(proc, `http://127.0.0.1:${port}/health`)
  return { id: 'bare', proc, base: `http://127.0.0.1:${port}/v1`, url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: {} }
}

/**
 * A reference gateway of reference-proxies.ts in its own process (as Mortar runs): `buffered`
 * (node:http both ways, bodies read whole) or `raw-client` (the model server's leg by hand).
 */
export async function startReference(upstream: Upstream, kind: 'buffered' | 'raw-client' | 'undici', { logDir }: { logDir: string }): Promise<Contender> {
  const port = await freePort()
  const proc = startProcess(`reference-${kind}`, NODE, [...TSX, join(HERE, 'reference-proxies.ts'), '--kind', kind, '--port', String(port), '--upstream', `http://127.0.0.1:${upstream.port}`], { logDir })
  await waitReady(proc, `http://127.0.0.1:${port}/health`)
  return { id: `reference-${kind}`, proc, base: `http://127.0.0.1:${port}/v1`, url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: {} }
}

/**
 * (3) Mortar: `mortar serve --upstream <fake>/v1` with auth on (a key made first with
 * `mortar keys create --json`), the optimizer in its default mode, and a 128k-token context window
 * (`--context-window`), so that every prompt is counted against a window as with a real model server. `cli` and `nodeArgs` let the
 * profiler run a source-mapped build under --cpu-prof.
 */
export async function startMortar(
  upstream: Upstream,
  {
    logDir,
    cli = join(ROOT, 'bin', 'mortar.js'),
    nodeArgs = [],
    name = 'mortar',
    id = 'mortar',
    serveArgs = [],
  }: { logDir: string; cli?: string | undefined; nodeArgs?: string[]; name?: string; id?: string; serveArgs?: string[] },
): Promise<Contender & { home: string }> {
  const home = mkdtempSync(join(tmpdir(), 'mortar-bench-home-'))
  const created = JSON.parse(
    execFileSync(NODE, [join(ROOT, 'bin', 'mortar.js'), 'keys', 'create', '--name', 'bench', '--home', home, '--json'], { encoding: 'utf8' }),
  ) as { key: string }
  const port = await freePort()
  const proc = startProcess(
    name,
    NODE,
    [...nodeArgs, cli, 'serve', '--host', '127.0.0.1', '--port', String(port), '--home', home, '--upstream', upstream.baseUrl, '--context-window', String(CONTEXT_WINDOW), ...serveArgs],
    { logDir, cwd: ROOT },
  )
  await waitReady(proc, `http://127.0.0.1:${port}/health`)
  // The fake server it forwards to, for counting the CPU of a job's own processes (run.ts `measure`).
  return { id, proc, home, upstreamProc: upstream.proc, base: `http://127.0.0.1:${port}/v1`, url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: { authorization: `Bearer ${created.key}` } }
}

/**
 * (4) Portkey's open-source gateway from npm, forwarding to the same model server as an OpenAI
 * provider with a custom host. It would listen on every interface; loopback-guard.ts makes it
 * listen on 127.0.0.1 and refuse any connection or DNS lookup off this machine.
 */
export async function startPortkey(upstream: Upstream, { logDir }: { logDir: string }): Promise<Contender> {
  const port = await freePort()
  const proc = startProcess('portkey', NODE, [...TSX, '--import', join(HERE, 'loopback-guard.ts'), PORTKEY_START, `--port=${port}`, '--headless'], { logDir })
  await waitReady(proc, `http://127.0.0.1:${port}/`)
  const addresses = listeningAddresses(port)
  if (addresses.some((a) => a !== '127.0.0.1')) throw new Error(`Portkey listens on ${addresses.join(', ')}, not only 127.0.0.1`)
  return {
    id: 'portkey',
    proc,
    listening: addresses,
    base: `http://127.0.0.1:${port}/v1`,
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream.baseUrl, authorization: 'Bearer sk-bench-unused' },
  }
}
