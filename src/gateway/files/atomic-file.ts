import { closeSync, fsyncSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { dirname, join, basename } from 'node:path'
import { randomBytes } from 'node:crypto'

/**
 * Write a file so that a crash at any moment leaves either the old or the new content, never a
 * torn one: write a sibling temp file, fsync it, rename it over the target, fsync the directory
 * (so the rename itself is on disk when this returns). Owner-only (0600), since these files hold
 * key hashes and configuration.
 */
export function writeFileAtomic(path: string, content: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  const fd = openSync(temp, 'w', 0o600)
  try {
    writeSync(fd, content)
    fsyncSync(fd)
  } catch (error) {
    closeSync(fd)
    rmSync(temp, { force: true })
    throw error
  }
  closeSync(fd)
  try {
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
  syncDirectory(dirname(path))
}

function syncDirectory(dir: string): void {
  let fd: number
  try {
    fd = openSync(dir, 'r')
  } catch {
    return // Windows cannot open a directory; its renames are durable by other means.
  }
  try {
    fsyncSync(fd)
  } catch {
    // Some file systems refuse fsync on a directory (EINVAL); the rename is done either way.
  } finally {
    closeSync(fd)
  }
}
