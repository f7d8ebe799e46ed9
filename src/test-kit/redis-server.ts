import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createServer } from 'node:net'
import { LOOPBACK } from './loopback'

/** Debian's redis-server (`apt-get install redis-server`; `.ci/run` installs it). */
export const REDIS_SERVER = '/usr/bin/redis-server'

/**
 * Whether tests that need Redis can run here. In CI they must (its script installs the server), so
 * only outside CI does a missing binary skip them, with the reason printed by the caller.
 */
export const redisAvailable = (): boolean => existsSync(REDIS_SERVER) || process.env.CI === 'true'

export interface RedisServer {
  url: string
  port: number
  /** Kill it at once (SIGKILL, no save): Redis going away as a crash does. */
  kill(): Promise<void>
  /**
   * Start it again on the same port, with what it had written: its append-only file is synced on
   * every write, as docs/cluster.md asks of a Redis that holds the keys.
   */
  restart(): Promise<void>
  stop(): Promise<void>
}

/** A real, empty Redis on a free loopback port, its data in a temporary directory, ready when this resolves. */
export async function startRedisServer(): Promise<RedisServer> {
  const port = await freePort()
  const dir = mkdtempSync(join(tmpdir(), 'mortar-redis-'))
  let child: ChildProcess | undefined
  const launch = async () => {
    child = await launchRedis(port, dir)
  }
  const kill = async () => {
    const running = child
    child = undefined
    if (running === undefined || running.exitCode !== null) return
    const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()))
    running.kill('SIGKILL')
    await exited
  }
  await launch()
  const stop = async () => {
    await kill()
    rmSync(dir, { recursive: true, force: true })
  }
  return { url: `redis://${LOOPBACK}:${port}`, port, kill, restart: launch, stop }
}

function launchRedis(port: number, dir: string): Promise<ChildProcess> {
  const child = spawn(
    REDIS_SERVER,
    ['--port', String(port), '--bind', LOOPBACK, '--dir', dir, '--save', '', '--appendonly', 'yes', '--appendfsync', 'always', '--protected-mode', 'yes', '--maxmemory', '64mb'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  return new Promise((resolve, reject) => {
    let output = ''
    const onData = (data: Buffer) => {
      output += data.toString()
      if (output.includes('Ready to accept connections')) {
        child.stdout?.off('data', onData)
        child.stdout?.resume()
        resolve(child)
      }
    }
    child.stdout?.on('data', onData)
    child.stderr?.on('data', (data: Buffer) => (output += data.toString()))
    child.once('error', reject)
    child.once('exit', (code) => reject(new Error(`redis-server exited (${code}) before it was ready: ${output.slice(-500)}`)))
  })
}

/** A port nothing listens on right now (Redis has no "pick one" option of its own). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
    probe.once('error', reject)
    probe.listen(0, LOOPBACK, () => {
      const { port } = probe.address() as { port: number }
      probe.close(() => resolve(port))
    })
  })
}
