import { randomBytes } from 'node:crypto'
import { closeSync, mkdirSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs'
import { hostname } from 'node:os'
import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { z } from 'zod'
import { errorText } from '../../shared/narrow'
import { errnoCode } from '../errno-code'

/** How long a writer waits for another one to finish before giving up. */
export const LOCK_WAIT_MS = 10_000
/** A lock older than this is abandoned: a change holds it for milliseconds (read, write, fsync). */
export const LOCK_STALE_MS = 30_000

export interface FileLockOptions {
  waitMs?: number
  staleMs?: number
}

/** Another process held the lock for the whole wait. */
export class FileLockBusyError extends Error {
  override name = 'FileLockBusyError'
}

/** The lock could not be taken at all (a read-only directory, …): waiting would not help. */
export class FileLockError extends Error {
  override name = 'FileLockError'
}

/** What a lock file holds: who took it, so a stale one can be told from a live one. */
const holderSchema = z.object({ pid: z.number(), host: z.string(), token: z.string() })
type Holder = z.output<typeof holderSchema>

/**
 * Run `change` while holding `<path>.lock`, so that read-modify-write cycles on one file, from any
 * number of processes, happen one after another instead of undoing each other. The lock is a file
 * created with O_EXCL (exactly one creator wins, on every local file system), holding the holder's
 * pid, host and a random token. A lock is taken over when its holder is gone — same host and its
 * pid is not alive — or when it is older than LOCK_STALE_MS. Waiting is bounded: past LOCK_WAIT_MS
 * a FileLockBusyError names the lock and its holder.
 *
 * This one waits without blocking the event loop (the gateway); `withFileLockSync` blocks (the CLI,
 * start-up). Both run `change` itself synchronously, so the lock is held for as short as possible.
 */
export async function withFileLock<T>(path: string, change: () => T, options: FileLockOptions = {}): Promise<T> {
  const attempts = lockAttempts(path, options)
  for (let step = attempts.next(); ; step = attempts.next()) {
    if (step.done) return runHolding(step.value, change)
    await sleep(step.value)
  }
}

export function withFileLockSync<T>(path: string, change: () => T, options: FileLockOptions = {}): T {
  const attempts = lockAttempts(path, options)
  for (let step = attempts.next(); ; step = attempts.next()) {
    if (step.done) return runHolding(step.value, change)
    // A real sleep, not a spin: the CLI must not burn the CPU the lock's holder needs.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, step.value)
  }
}

interface HeldLock {
  lockPath: string
  content: string
}

function runHolding<T>(lock: HeldLock, change: () => T): T {
  try {
    return change()
  } finally {
    release(lock)
  }
}

/** Tries until the lock is held (the generator's result), yielding how long to wait between tries. */
function* lockAttempts(path: string, options: FileLockOptions): Generator<number, HeldLock, void> {
  const lockPath = `${path}.lock`
  const waitMs = options.waitMs ?? LOCK_WAIT_MS
  const staleMs = options.staleMs ?? LOCK_STALE_MS
  const content = JSON.stringify({ pid: process.pid, host: hostname(), token: randomBytes(12).toString('hex') } satisfies Holder)
  try {
    mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  } catch (error) {
    throw new FileLockError(`Cannot create the directory of ${path}: ${errorText(error)}`)
  }
  const deadline = performance.now() + waitMs
  for (let attempt = 0; ; attempt++) {
    if (createExclusive(lockPath, content)) return { lockPath, content }
    const seen = readLock(lockPath)
    if (seen !== undefined && isStale(seen, staleMs)) {
      takeOverStale(lockPath, seen.text, staleMs)
      continue
    }
    if (performance.now() >= deadline) {
      const holder = seen?.holder
      throw new FileLockBusyError(
        `Another process is changing ${path}: its lock ${lockPath} is held` +
          (holder !== undefined ? ` by pid ${holder.pid}${holder.host !== hostname() ? ` on ${holder.host}` : ''}` : '') +
          ` and was not released within ${Math.round(waitMs / 1000)} s. Try again; if no other mortar process is running, delete ${lockPath}.`,
      )
    }
    // From 2 ms up to 50 ms, with jitter so that waiting processes do not retry in lockstep.
    yield Math.min(50, 2 * 2 ** Math.min(attempt, 5)) * (0.5 + Math.random() / 2)
  }
}

function createExclusive(lockPath: string, content: string): boolean {
  let fd: number
  try {
    fd = openSync(lockPath, 'wx', 0o600)
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false
    throw new FileLockError(`Cannot create the lock file ${lockPath}: ${errorText(error)}`)
  }
  try {
    writeSync(fd, content)
  } finally {
    closeSync(fd)
  }
  return true
}

interface SeenLock {
  text: string
  holder: Holder | undefined
  ageMs: number
}

function readLock(lockPath: string): SeenLock | undefined {
  try {
    const ageMs = Date.now() - statSync(lockPath).mtimeMs
    const text = readFileSync(lockPath, 'utf8')
    return { text, holder: parseHolder(text), ageMs }
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return undefined // released meanwhile: try again
    throw error
  }
}

function parseHolder(text: string): Holder | undefined {
  try {
    const holder = holderSchema.safeParse(JSON.parse(text))
    if (holder.success) return holder.data
  } catch {
    // Empty or partial: its creator is writing it right now, or died doing so (then age decides).
  }
  return undefined
}

function isStale({ holder, ageMs }: SeenLock, staleMs: number): boolean {
  if (ageMs > staleMs) return true
  return holder !== undefined && holder.host === hostname() && !isAlive(holder.pid)
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return errnoCode(error) === 'EPERM'
  }
}

/**
 * Remove a stale lock without ever removing a live one. Two waiters may judge the same lock stale;
 * if the first removed it and a third process then took the lock, the second must not remove that
 * new one. So removal happens under a second, short-lived lock (`.lock.break`), and only when the
 * lock file still has the content that was judged stale.
 */
function takeOverStale(lockPath: string, staleText: string, staleMs: number): void {
  const breakPath = `${lockPath}.break`
  if (!createExclusive(breakPath, String(process.pid))) {
    const breaker = readLock(breakPath)
    // A breaker that died mid-way: its own lock ages out the same way.
    if (breaker !== undefined && breaker.ageMs > staleMs) unlinkIfPresent(breakPath)
    return
  }
  try {
    if (readLock(lockPath)?.text === staleText) unlinkIfPresent(lockPath)
  } finally {
    unlinkIfPresent(breakPath)
  }
}

function release({ lockPath, content }: HeldLock): void {
  // Only our own lock: had it been taken over as stale, it belongs to someone else now.
  if (readLock(lockPath)?.text === content) unlinkIfPresent(lockPath)
}

function unlinkIfPresent(path: string): void {
  try {
    unlinkSync(path)
  } catch (error) {
    if (errnoCode(error) !== 'ENOENT') throw error
  }
}
