// The fake model server and the contenders, each its own process on 127.0.0.1.
import { execFileSync } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { freePort, HERE, listeningAddresses, NODE, PORTKEY_START, ROOT, startProcess, waitReady } from './lib.mjs'

export const CONTENDERS = ['direct', 'bare', 'mortar', 'mortar-capture-off', 'portkey']
// `mortar` runs as installed, so with traffic capture in memory (the default); the same build with
// `--capture off` beside it shows what capture costs.
export const LABELS = { direct: 'direct', bare: 'bare proxy (floor)', mortar: 'Mortar', 'mortar-capture-off': 'Mortar, capture off', portkey: 'Portkey' }

export async function startUpstream({ logDir, deltas, intervalMs }) {
  const port = await freePort()
  const proc = startProcess('fake-upstream', NODE, [join(HERE, 'fake-upstream.mjs'), '--port', String(port), '--deltas', String(deltas), '--interval-ms', String(intervalMs)], { logDir })
  await waitReady(proc, `http://127.0.0.1:${port}/health`)
  return { proc, port, baseUrl: `http://127.0.0.1:${port}/v1` }
}

/** (1) Straight to the model server: the baseline every "added" number subtracts. */
export function direct(upstream) {
  return { id: 'direct', proc: upstream.proc, url: `${upstream.baseUrl}/chat/completions`, headers: {} }
}

/** (2) The floor: a bare node:http pass-through proxy. */
export async function startBare(upstream, { logDir }) {
  const port = await freePort()
  const proc = startProcess('bare-proxy', NODE, [join(HERE, 'bare-proxy.mjs'), '--port', String(port), '--upstream', `http://127.0.0.1:${upstream.port}`], { logDir })
  await waitReady(proc, `http://127.0.0.1:${port}/health`)
  return { id: 'bare', proc, url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: {} }
}

/**
 * (3) Mortar: `mortar serve --upstream <fake>/v1` with auth on (a key made first with
 * `mortar keys create --json`) and the optimizer in its default mode. `cli` and `nodeArgs` let the
 * profiler run a source-mapped build under --cpu-prof.
 */
export async function startMortar(upstream, { logDir, cli = join(ROOT, 'bin', 'mortar.js'), nodeArgs = [], name = 'mortar', id = 'mortar', serveArgs = [] }) {
  const home = mkdtempSync(join(tmpdir(), 'mortar-bench-home-'))
  const created = JSON.parse(
    execFileSync(NODE, [join(ROOT, 'bin', 'mortar.js'), 'keys', 'create', '--name', 'bench', '--home', home, '--json'], { encoding: 'utf8' }),
  )
  const port = await freePort()
  const proc = startProcess(name, NODE, [...nodeArgs, cli, 'serve', '--host', '127.0.0.1', '--port', String(port), '--home', home, '--upstream', upstream.baseUrl, ...serveArgs], { logDir, cwd: ROOT })
  await waitReady(proc, `http://127.0.0.1:${port}/health`)
  return { id, proc, home, url: `http://127.0.0.1:${port}/v1/chat/completions`, headers: { authorization: `Bearer ${created.key}` } }
}

/**
 * (4) Portkey's open-source gateway from npm, forwarding to the same model server as an OpenAI
 * provider with a custom host. It would listen on every interface; loopback-guard.mjs makes it
 * listen on 127.0.0.1 and refuse any connection or DNS lookup off this machine.
 */
export async function startPortkey(upstream, { logDir }) {
  const port = await freePort()
  const proc = startProcess('portkey', NODE, ['--import', join(HERE, 'loopback-guard.mjs'), PORTKEY_START, `--port=${port}`, '--headless'], { logDir })
  await waitReady(proc, `http://127.0.0.1:${port}/`)
  const addresses = listeningAddresses(port)
  if (addresses.some((a) => a !== '127.0.0.1')) throw new Error(`Portkey listens on ${addresses.join(', ')}, not only 127.0.0.1`)
  return {
    id: 'portkey',
    proc,
    listening: addresses,
    url: `http://127.0.0.1:${port}/v1/chat/completions`,
    headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': upstream.baseUrl, authorization: 'Bearer sk-bench-unused' },
  }
}
