import type { Dialect } from '../../shared/api/dialect'
import { apiKeyHint, generateApiKey, hashApiKey, newKeyId } from './api-key'
import { FileKeyRecords } from './file-key-records'
import {
  DEFAULT_KEY_LIFETIME_DAYS,
  DEFAULT_ORG,
  keyStatus,
  ORG_PATTERN,
  type KeyStatus,
  type KeyRecord,
  type Role,
} from './key-records'
import type { KeyChange, KeyRecordsSource } from './key-records-source'
import { KeyNotFoundError, KeyStoreError, KeysUnavailableError } from './key-store-errors'

export type { KeyChange } from './key-records-source'
export { KeyFileBusyError, KeyFileError, KeyNotFoundError, KeyStoreError, KeysUnavailableError } from './key-store-errors'

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
  /** The records cannot be known now (Redis away longer than the copy may be trusted). */
  | { ok: false; reason: 'unavailable'; message: string }

export interface CreateKeyOptions {
  name: string
  role?: Role
  org?: string
  /** Days until it expires, or null for never. Defaults to 30. */
  expiresInDays?: number | null | undefined
  /** The dialect its requests get; null or left out: the gateway's. */
  dialect?: Dialect | null | undefined
}

/** Checks a change's target key against the file, under the lock; throws to refuse. */
export type AuthorizeChange = (target: KeyRecord, records: readonly KeyRecord[]) => void

/** Whether a key still works; `unknown`: no longer in the file at all. */
export type KeyValidity = KeyStatus | 'unknown'

const EPHEMERAL_ID_PREFIX = 'ephemeral:'

/**
 * The API keys of a gateway: their records in a KeyRecordsSource (keys.json, or Redis for a
 * cluster) and the per-launch keys of its own window, which only this process knows. Every check
 * reads the source's current records, so a revocation made anywhere counts as soon as the source
 * knows of it.
 */
export class KeyStore {
  readonly source: KeyRecordsSource
  /** Per-launch keys (the UI's): in memory only, gone when the process exits. */
  private readonly ephemeral = new Map<string, Principal>()

  constructor(
    /** A path means keys.json at that path. */
    source: KeyRecordsSource | string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.source = typeof source === 'string' ? new FileKeyRecords(source) : source
  }

  list(): KeyRecord[] {
    return this.currentRecords().map((record) => ({ ...record }))
  }

  isEmpty(): boolean {
    return this.currentRecords().length === 0
  }

  /** Create a key, blocking while the file's lock is held (keys.json only: see `changeSync`). */
  create(options: CreateKeyOptions): { key: string; record: KeyRecord } {
    return this.changeSync(this.creation(options))
  }

  /** A key only if the store has none yet, decided within the change (two gateways starting at once make one). */
  async createIfNone(options: CreateKeyOptions): Promise<{ key: string; record: KeyRecord } | undefined> {
    // Only an empty store is worth a change: a home with keys may well be read-only. Keys that
    // cannot be read now (Redis away) are not known to be none: nothing is made.
    try {
      if (!this.isEmpty()) return undefined
      const create = this.creation(options)
      return await this.change<{ key: string; record: KeyRecord } | undefined>((records, now) =>
        records.length > 0 ? { records, result: undefined } : create(records, now),
      )
    } catch (error) {
      if (error instanceof KeysUnavailableError) return undefined
      throw error
    }
  }

  revoke(id: string): KeyRecord {
    return this.changeSync(this.revocation(id))
  }

  rotate(id: string): { key: string; record: KeyRecord; revoked: KeyRecord } {
    return this.changeSync(this.rotation(id))
  }

  /**
   * Apply a change so that no other change, from this process or any other, can undo it: against
   * the records as the store holds them at that moment (under keys.json's lock; in Redis, checked
   * against its version). Never blocks the event loop; resolves once the change is stored.
   */
  change<T>(change: KeyChange<T>): Promise<T> {
    return this.source.apply(change, this.now())
  }

  /** `change`, blocking while it waits: for tests and tools on one machine's keys.json. */
  changeSync<T>(change: KeyChange<T>): T {
    if (this.source.applySync === undefined) throw new KeyStoreError(`Keys in ${this.source.description} are changed asynchronously.`)
    return this.source.applySync(change, this.now())
  }

  /** Told after every change to the keys that this process learns of (streams bound to keys re-check them). */
  onChange(listener: () => void): () => void {
    return this.source.onChange(listener)
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
    let record: KeyRecord | undefined
    try {
      record = this.source.read({ strict: false }).byHash.get(hash)
    } catch (error) {
      if (error instanceof KeysUnavailableError) return { ok: false, reason: 'unavailable', message: error.message }
      throw error
    }
    if (record === undefined) return { ok: false, reason: 'invalid' }
    const status = keyStatus(record, this.now())
    if (status !== 'active') return { ok: false, reason: status, key: { keyId: record.id, keyName: record.name } }
    return { ok: true, principal: { keyId: record.id, keyName: record.name, org: record.org, role: record.role, dialect: record.dialect } }
  }

  /**
   * Whether the key with this ID still works, by the records as known now (the request path's
   * lenient read). While they cannot be known (Redis away too long) a key keeps what it had:
   * 'active', so no stream is ended for want of news.
   */
  validityOf(keyId: string): KeyValidity {
    // Per-launch keys live as long as the process.
    if (keyId.startsWith(EPHEMERAL_ID_PREFIX)) return 'active'
    let record: KeyRecord | undefined
    try {
      record = this.source.read({ strict: false }).byId.get(keyId)
    } catch (error) {
      if (error instanceof KeysUnavailableError) return 'active'
      throw error
    }
    return record === undefined ? 'unknown' : keyStatus(record, this.now())
  }

  /** Stop following the source (the gateway is closing). */
  close(): void {
    this.source.close()
  }

  private currentRecords(): KeyRecord[] {
    return this.source.read({ strict: true }).records
  }
}

function findKey(records: readonly KeyRecord[], id: string): KeyRecord {
  const record = records.find((r) => r.id === id)
  if (record === undefined) throw new KeyNotFoundError(id)
  return record
}
