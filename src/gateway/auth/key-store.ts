import { writeFileAtomic } from '../config/atomic-file'
import { parseJsonFile } from '../config/parse-json-file'
import { WatchedFile } from '../config/watched-file'
import { apiKeyHint, generateApiKey, hashApiKey, newKeyId } from './api-key'
import {
  DEFAULT_KEY_LIFETIME_DAYS,
  DEFAULT_ORG,
  keyFileSchema,
  keyStatus,
  ORG_PATTERN,
  type KeyFile,
  type KeyRecord,
  type Role,
} from './key-records'

export interface Principal {
  keyId: string
  keyName: string
  org: string
  role: Role
}

export type AuthenticationResult =
  | { ok: true; principal: Principal }
  | { ok: false; reason: 'invalid' | 'expired' | 'revoked' }

export class KeyStoreError extends Error {
  override name = 'KeyStoreError'
}

export interface CreateKeyOptions {
  name: string
  role?: Role
  org?: string
  /** Days until it expires, or null for never. Defaults to 30. */
  expiresInDays?: number | null | undefined
}

interface KeyIndex {
  records: KeyRecord[]
  byHash: Map<string, KeyRecord>
}

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

  create(options: CreateKeyOptions): { key: string; record: KeyRecord } {
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
    const created = this.now()
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
    }
    this.save([...this.currentRecords(), record])
    return { key, record: { ...record } }
  }

  revoke(id: string): KeyRecord {
    const records = this.currentRecords()
    const record = records.find((r) => r.id === id)
    if (record === undefined) throw new KeyStoreError(`No key has the ID ${id}. \`mortar keys list\` shows them.`)
    if (record.revokedAt !== null) throw new KeyStoreError(`The key ${id} was already revoked on ${record.revokedAt}.`)
    const revoked = { ...record, revokedAt: this.now().toISOString() }
    this.save(records.map((r) => (r.id === id ? revoked : r)))
    return revoked
  }

  /** A new key with the same name, org, role and lifetime; the old one is revoked in the same write. */
  rotate(id: string): { key: string; record: KeyRecord; revoked: KeyRecord } {
    const records = this.currentRecords()
    const old = records.find((r) => r.id === id)
    if (old === undefined) throw new KeyStoreError(`No key has the ID ${id}. \`mortar keys list\` shows them.`)
    if (old.revokedAt !== null) throw new KeyStoreError(`The key ${id} is revoked; create a new one instead.`)
    const lifetimeMs = old.expiresAt === null ? null : Date.parse(old.expiresAt) - Date.parse(old.createdAt)
    const key = generateApiKey()
    const now = this.now()
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
    this.save([...records.map((r) => (r.id === id ? revoked : r)), record])
    return { key, record: { ...record }, revoked }
  }

  /**
   * A key that lives as long as this process: for the desktop window and the browser UI that
   * `mortar serve` opens. Never written to disk, so it needs no revoking.
   */
  createEphemeral(name: string, org: string = DEFAULT_ORG, role: Role = 'owner'): string {
    const key = generateApiKey()
    this.ephemeral.set(hashApiKey(key), { keyId: `ephemeral:${name}`, keyName: name, org, role })
    return key
  }

  authenticate(key: string): AuthenticationResult {
    const hash = hashApiKey(key)
    const launchKey = this.ephemeral.get(hash)
    if (launchKey !== undefined) return { ok: true, principal: launchKey }
    const record = this.keys.read({ strict: false }).byHash.get(hash)
    if (record === undefined) return { ok: false, reason: 'invalid' }
    const status = keyStatus(record, this.now())
    if (status !== 'active') return { ok: false, reason: status }
    return { ok: true, principal: { keyId: record.id, keyName: record.name, org: record.org, role: record.role } }
  }

  /** Stop watching keys.json (the gateway is closing). */
  close(): void {
    this.keys.close()
  }

  private currentRecords(): KeyRecord[] {
    return this.keys.read({ strict: true }).records
  }

  private save(records: KeyRecord[]): void {
    const file: KeyFile = { version: 1, keys: records }
    writeFileAtomic(this.file, JSON.stringify(file, null, 2) + '\n')
    // Re-read at once, so memory and disk cannot disagree (even if the file is spoiled later).
    this.keys.invalidate()
    this.keys.read({ strict: true })
  }
}

function indexKeys(records: KeyRecord[]): KeyIndex {
  return { records, byHash: new Map(records.map((record) => [record.hash, record])) }
}

function parseKeyFile(path: string, text: string): KeyRecord[] {
  return parseJsonFile(path, text, keyFileSchema, 'key file', (message) => new KeyStoreError(message)).keys
}
