import type { Dialect } from '../../shared/api/dialect'
import { writeFileAtomic } from '../files/atomic-file'
import { FileLockBusyError, FileLockError, withFileLock, withFileLockSync } from '../files/file-lock'
import { parseJsonFile } from '../files/parse-json-file'
import { WatchedFile } from '../files/watched-file'
import { apiKeyHint, generateApiKey, hashApiKey, newKeyId } from './api-key'
import {
  DEFAULT_KEY_LIFETIME_DAYS,
  DEFAULT_ORG,
  keyFileSchema,
  keyStatus,
  ORG_PATTERN,
  type KeyStatus,
  type KeyFile,
  type KeyRecord,
  type Role,
} from './key-records'
import { errorText } from '../../shared/narrow'

export interface Principal {
  keyId: string
  keyName: string
  org: string
  role: Role
  /** The key's own dialect, or null for the gateway's. */
  dialect: Dialect | null
}

/** A key that exists but no longer works: which one it was (never the key itself). */
export interface RefusedKey {
  keyId: string
  keyName: string
}

export type AuthenticationResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'invalid' }
  | { ok: false; reason: 'expired' | 'revoked'; key: RefusedKey }

export class KeyStoreError extends Error {
  override name = 'KeyStoreError'
}

export interface CreateKeyOptions {
  name: string
  role?: Role
  org?: string
  /** Days until it expires, or null for never. Defaults to 30. */
  expiresInDays?: number | null | undefined
  /** The dialect its requests get; null or left out: the gateway's. */
  dialect?: Dialect | null | undefined
}

/**
 * A change of the key file, applied under its lock to the records as they are on disk then: returns
 * the new records and what to tell the caller, or throws (KeyStoreError) to change nothing.
 */
export type KeyChange<T> = (records: readonly KeyRecord[], now: Date) => { records: readonly KeyRecord[]; result: T }

/** Checks a change's target key against the file, under the lock; throws to refuse. */
export type AuthorizeChange = (target: KeyRecord, records: readonly KeyRecord[]) => void

/** The key file itself is the problem: it does not parse, or cannot be locked or written. */
export class KeyFileError extends KeyStoreError {
  override name = 'KeyFileError'
}

/** Another process held the key file's lock for the whole bounded wait. */
export class KeyFileBusyError extends KeyFileError {
  override name = 'KeyFileBusyError'
}

/** No key has that ID (in the file as it is now). */
export class KeyNotFoundError extends KeyStoreError {
  override name = 'KeyNotFoundError'
  constructor(readonly id: string) {
    super(`No key has the ID ${id}. \`mortar keys list\` shows them.`)
  }
}

interface KeyIndex {
  records: KeyRecord[]
  byHash: Map<string, KeyRecord>
  byId: Map<string, KeyRecord>
}

/** Whether a key still works; `unknown`: no longer in the file at all. */
export type KeyValidity = KeyStatus | 'unknown'

const EPHEMERAL_ID_PREFIX = 'ephemeral:'


/**
 * The API keys of one Mortar home, in `keys.json`. The file is the source of truth and may be
 * changed by another process (`mortar keys revoke` while `mortar serve` runs): every lookup goes
 * through a WatchedFile, which re-reads it when it changed, so a revocation is effective from the
 * next request on. A corrupt file is never overwritten by us.
 */
export class KeyStore {
  private readonly keys: WatchedFile<KeyIndex>
  /** Per-launch keys (the UI's): in memory only, gone when the process exits. */
  private readonly ephemeral = new Map<string, Principal>()
  private readonly changeListeners = new Set<() => void>()

  constructor(
    readonly file: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.keys = new WatchedFile(file, (text) => indexKeys(text === undefined ? [] : parseKeyFile(file, text)))
    this.keys.read({ strict: true })
  }

  list(): KeyRecord[] {
    return this.currentRecords().map((record) => ({ ...record }))
  }

  isEmpty(): boolean {
    return this.currentRecords().length === 0
  }

  /** Create a key; the file is changed under its lock (see `change`), blocking while another process holds it. */
  create(options: CreateKeyOptions): { key: string; record: KeyRecord } {
    return this.changeSync(this.creation(options))
  }

  /** A key only if the file has none yet, decided under the lock (two gateways starting at once make one). */
  createIfNone(options: CreateKeyOptions): { key: string; record: KeyRecord } | undefined {
    // Only an empty file is worth the lock: a home with keys may well be read-only.
    if (!this.isEmpty()) return undefined
    const create = this.creation(options)
    return this.changeSync<{ key: string; record: KeyRecord } | undefined>((records, now) =>
      records.length > 0 ? { records, result: undefined } : create(records, now),
    )
  }

  revoke(id: string): KeyRecord {
    return this.changeSync(this.revocation(id))
  }

  rotate(id: string): { key: string; record: KeyRecord; revoked: KeyRecord } {
    return this.changeSync(this.rotation(id))
  }

  /**
   * Apply a change to keys.json so that no other change, from this process or any other, can undo
   * it: take the file's lock, re-read the file, apply, write it atomically, then release. Waits for
   * the lock without blocking the event loop (the gateway's way); gives up with a KeyStoreError
   * after LOCK_WAIT_MS. Resolves only once the new file is on disk.
   */
  async change<T>(change: KeyChange<T>): Promise<T> {
    let result: T
    try {
      result = await withFileLock(this.file, () => this.applyLocked(change))
    } catch (error) {
      throw asKeyStoreError(error)
    }
    this.changed()
    return result
  }

  /** `change`, blocking while it waits: for the CLI and start-up. */
  changeSync<T>(change: KeyChange<T>): T {
    let result: T
    try {
      result = withFileLockSync(this.file, () => this.applyLocked(change))
    } catch (error) {
      throw asKeyStoreError(error)
    }
    this.changed()
    return result
  }

  /** Told after every change this process made to the file (streams bound to keys re-check them). */
  onChange(listener: () => void): () => void {
    this.changeListeners.add(listener)
    return () => this.changeListeners.delete(listener)
  }

  /** A new key. The options are checked when it is applied, against the file as it is then. */
  creation(options: CreateKeyOptions): KeyChange<{ key: string; record: KeyRecord }> {
    return (records, created) => {
      const name = options.name.trim()
      if (name === '' || name.length > 100) throw new KeyStoreError('A key needs a name of 1 to 100 characters.')
      const org = options.org ?? DEFAULT_ORG
      if (!ORG_PATTERN.test(org)) {
        throw new KeyStoreError('An organization is 1 to 64 letters, digits, dots, dashes or underscores.')
      }
      const days = options.expiresInDays === undefined ? DEFAULT_KEY_LIFETIME_DAYS : options.expiresInDays
      if (days !== null && (!Number.isInteger(days) || days <= 0 || days > 36_500)) {
        throw new KeyStoreError('--expires-in takes a whole number of days from 1 to 36500, or `never`.')
      }
      const key = generateApiKey()
      const record: KeyRecord = {
        id: newKeyId(),
        name,
        org,
        role: options.role ?? 'member',
        hash: hashApiKey(key),
        hint: apiKeyHint(key),
        createdAt: created.toISOString(),
        expiresAt: days === null ? null : new Date(created.getTime() + days * 86_400_000).toISOString(),
        revokedAt: null,
        rotatedFrom: null,
        dialect: options.dialect ?? null,
      }
      return { records: [...records, record], result: { key, record: { ...record } } }
    }
  }

  /** Revoke a key. `authorize` sees the key and the whole file first, and throws to refuse. */
  revocation(id: string, authorize?: AuthorizeChange): KeyChange<KeyRecord> {
    return (records, now) => {
      const record = findKey(records, id)
      authorize?.(record, records)
      if (record.revokedAt !== null) throw new KeyStoreError(`The key ${id} was already revoked on ${record.revokedAt}.`)
      const revoked = { ...record, revokedAt: now.toISOString() }
      return { records: records.map((r) => (r.id === id ? revoked : r)), result: revoked }
    }
  }

  /** A new key with the same name, org, role, dialect and lifetime; the old one is revoked in the same write. */
  rotation(id: string, authorize?: AuthorizeChange): KeyChange<{ key: string; record: KeyRecord; revoked: KeyRecord }> {
    return (records, now) => {
      const old = findKey(records, id)
      authorize?.(old, records)
      if (old.revokedAt !== null) throw new KeyStoreError(`The key ${id} is revoked; create a new one instead.`)
      const lifetimeMs = old.expiresAt === null ? null : Date.parse(old.expiresAt) - Date.parse(old.createdAt)
      const key = generateApiKey()
      const record: KeyRecord = {
        ...old,
        id: newKeyId(),
        hash: hashApiKey(key),
        hint: apiKeyHint(key),
        createdAt: now.toISOString(),
        expiresAt: lifetimeMs === null ? null : new Date(now.getTime() + lifetimeMs).toISOString(),
        revokedAt: null,
        rotatedFrom: old.id,
      }
      const revoked = { ...old, revokedAt: now.toISOString() }
      return { records: [...records.map((r) => (r.id === id ? revoked : r)), record], result: { key, record: { ...record }, revoked } }
    }
  }

  /**
   * A key that lives as long as this process: for the desktop window and the browser UI that
   * `mortar serve` opens. Never written to disk, so it needs no revoking.
   */
  createEphemeral(name: string, org: string = DEFAULT_ORG, role: Role = 'owner'): string {
    const key = generateApiKey()
    this.ephemeral.set(hashApiKey(key), { keyId: `${EPHEMERAL_ID_PREFIX}${name}`, keyName: name, org, role, dialect: null })
    return key
  }

  authenticate(key: string): AuthenticationResult {
    const hash = hashApiKey(key)
    const launchKey = this.ephemeral.get(hash)
    if (launchKey !== undefined) return { ok: true, principal: launchKey }
    const record = this.keys.read({ strict: false }).byHash.get(hash)
    if (record === undefined) return { ok: false, reason: 'invalid' }
    const status = keyStatus(record, this.now())
    if (status !== 'active') return { ok: false, reason: status, key: { keyId: record.id, keyName: record.name } }
    return { ok: true, principal: { keyId: record.id, keyName: record.name, org: record.org, role: record.role, dialect: record.dialect } }
  }

  /** Whether the key with this ID still works, by the file as it is now (the request path's lenient read). */
  validityOf(keyId: string): KeyValidity {
    // Per-launch keys live as long as the process.
    if (keyId.startsWith(EPHEMERAL_ID_PREFIX)) return 'active'
    const record = this.keys.read({ strict: false }).byId.get(keyId)
    return record === undefined ? 'unknown' : keyStatus(record, this.now())
  }

  /** Stop watching keys.json (the gateway is closing). */
  close(): void {
    this.keys.close()
  }

  private currentRecords(): KeyRecord[] {
    return this.keys.read({ strict: true }).records
  }

  private changed(): void {
    for (const listener of this.changeListeners) listener()
  }

  /** Under the lock: the file as it is now (re-parsed, never trusted from a cached identity), changed, written. */
  private applyLocked<T>(change: KeyChange<T>): T {
    this.keys.invalidate()
    const current = this.currentRecords()
    const { records, result } = change(current, this.now())
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

function findKey(records: readonly KeyRecord[], id: string): KeyRecord {
  const record = records.find((r) => r.id === id)
  if (record === undefined) throw new KeyNotFoundError(id)
  return record
}

/** The lock's refusals as key-store errors, so the CLI prints them plainly and the API can map them. */
function asKeyStoreError(error: unknown): unknown {
  if (error instanceof FileLockBusyError) return new KeyFileBusyError(error.message)
  if (error instanceof FileLockError) return new KeyFileError(error.message)
  return error
}

function indexKeys(records: KeyRecord[]): KeyIndex {
  return {
    records,
    byHash: new Map(records.map((record) => [record.hash, record])),
    byId: new Map(records.map((record) => [record.id, record])),
  }
}

function parseKeyFile(path: string, text: string): KeyRecord[] {
  return parseJsonFile(path, text, keyFileSchema, 'key file', (message) => new KeyFileError(message)).keys
}
