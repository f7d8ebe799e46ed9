import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { existsSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FileLockBusyError, FileLockError, withFileLock, withFileLockSync } from './file-lock'

let dir: string
let file: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'mortar-lock-'))
  file = join(dir, 'keys.json')
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const holder = (pid: number) => JSON.stringify({ pid, host: hostname(), token: 'someone-else' })

async function exitedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' })
  await once(child, 'exit')
  return child.pid!
}

describe('withFileLock', () => {
  it('holds <file>.lock while the change runs and removes it after, also when the change throws', async () => {
    expect(withFileLockSync(file, () => existsSync(`${file}.lock`))).toBe(true)
    expect(await withFileLock(file, () => existsSync(`${file}.lock`))).toBe(true)
    expect(() =>
      withFileLockSync(file, () => {
        throw new Error('refused')
      }),
    ).toThrow('refused')
    expect(readdirSync(dir)).toEqual([])
  })

  it('gives up after its bounded wait with an error naming the lock and its live holder', async () => {
    writeFileSync(`${file}.lock`, holder(process.pid))
    expect(() => withFileLockSync(file, () => 'never', { waitMs: 100 })).toThrow(FileLockBusyError)
    await expect(withFileLock(file, () => 'never', { waitMs: 100 })).rejects.toThrow(
      new RegExp(`${file}\\.lock is held by pid ${process.pid} and was not released within 0 s`),
    )
    // The holder's lock is left alone.
    expect(existsSync(`${file}.lock`)).toBe(true)
  })

  it('takes over the lock of a process that no longer runs', async () => {
    writeFileSync(`${file}.lock`, holder(await exitedPid()))
    expect(withFileLockSync(file, () => 'changed', { waitMs: 100 })).toBe('changed')
    expect(readdirSync(dir)).toEqual([])
  })

  it('takes over a lock older than the stale age, whoever holds it', () => {
    writeFileSync(`${file}.lock`, holder(process.pid))
    const minuteAgo = new Date(Date.now() - 60_000)
    utimesSync(`${file}.lock`, minuteAgo, minuteAgo)
    expect(withFileLockSync(file, () => 'changed', { waitMs: 100 })).toBe('changed')
  })

  it('waits for a lock being written (no content yet) instead of taking it over', () => {
    writeFileSync(`${file}.lock`, '')
    expect(() => withFileLockSync(file, () => 'never', { waitMs: 100 })).toThrow(FileLockBusyError)
  })

  it('says why when the lock cannot be created at all', () => {
    writeFileSync(join(dir, 'not-a-dir'), '')
    expect(() => withFileLockSync(join(dir, 'not-a-dir', 'keys.json'), () => 'never')).toThrow(FileLockError)
  })
})
