import { writeFileAtomic } from '../files/atomic-file'
import { FileLockBusyError, FileLockError, withFileLock, withFileLockSync } from '../files/file-lock'
import { parseJsonFile } from '../files/parse-json-file'
import { WatchedFile } from '../files/watched-file'
import { errorText } from '../../shared/narrow'
import { keyFileSchema, type KeyFile, type KeyRecord } from './key-records'
import { indexKeys, type KeyChange, type KeyIndex, type KeyRecordsSource } from './key-records-source'
import { KeyFileBusyError, KeyFileError } from './key-store-errors'

/**
 * The keys of one Mortar home, in `keys.json`. The file is the source of truth and may be changed
 * by another process (`mortar keys revoke` while `mortar serve` runs): every read goes through a
 * WatchedFile, which re-reads it when it changed, so a revocation is effective from the next
 * request on. A change takes the file's lock, re-reads the file, applies, and writes it atomically,
 * so no other change, from this process or any other, can undo it. A corrupt file is never
 * overwritten.
 */
export class FileKeyRecords implements KeyRecordsSource {
  readonly description: string
  private readonly keys: WatchedFile<KeyIndex>
  private readonly listeners = new Set<() => void>()

  constructor(readonly file: string) {
    this.description = `the key file ${file}`
    this.keys = new WatchedFile(file, (text) => indexKeys(text === undefined ? [] : parseKeyFile(file, text)))
    this.keys.read({ strict: true })
  }

  read(options: { strict: boolean }): KeyIndex {
    return this.keys.read(options)
  }

  /** Waits for the lock without blocking the event loop; gives up with a KeyFileBusyError after the lock's bounded wait. */
  async apply<T>(change: KeyChange<T>, now: Date): Promise<T> {
    let result: T
    try {
      result = await withFileLock(this.file, () => this.applyLocked(change, now))
    } catch (error) {
      throw asKeyStoreError(error)
    }
    this.changed()
    return result
  }

  applySync<T>(change: KeyChange<T>, now: Date): T {
    let result: T
    try {
      result = withFileLockSync(this.file, () => this.applyLocked(change, now))
    } catch (error) {
      throw asKeyStoreError(error)
    }
    this.changed()
    return result
  }

  /** Changes this process made; another process's edits are seen by the next read (the watcher). */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  close(): void {
    this.keys.close()
  }

  private changed(): void {
    for (const listener of this.listeners) listener()
  }

  /** Under the lock: the file as it is now (re-parsed, never trusted from a cached identity), changed, written. */
  private applyLocked<T>(change: KeyChange<T>, now: Date): T {
    this.keys.invalidate()
    const current = this.keys.read({ strict: true }).records
    const { records, result } = change(current, now)
    if (records === current) return result
    const file: KeyFile = { version: 1, keys: [...records] }
    try {
      writeFileAtomic(this.file, JSON.stringify(file, null, 2) + '\n')
    } catch (error) {
      throw new KeyFileError(`Cannot write the key file ${this.file}: ${errorText(error)}`)
    }
    // Re-read at once, so memory and disk cannot disagree (even if the file is spoiled later).
    this.keys.invalidate()
    this.keys.read({ strict: true })
    return result
  }
}

/** The lock's refusals as key-store errors, so the CLI prints them plainly and the API can map them. */
function asKeyStoreError(error: unknown): unknown {
  if (error instanceof FileLockBusyError) return new KeyFileBusyError(error.message)
  if (error instanceof FileLockError) return new KeyFileError(error.message)
  return error
}

function parseKeyFile(path: string, text: string): KeyRecord[] {
  return parseJsonFile(path, text, keyFileSchema, 'key file', (message) => new KeyFileError(message)).keys
}
