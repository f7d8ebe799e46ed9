import { readFileSync, statSync, type BigIntStats } from 'node:fs'
import { writeFileAtomic } from '../config/atomic-file'
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

/**
 * The API keys of one Mortar home, in `keys.json`. The file is the source of truth and may be
 * changed by another process (`mortar keys revoke` while `mortar serve` runs), so every lookup
 * first checks the file's identity (inode, size, mtime in ns: one stat) and re-reads it when it
 * changed. That makes a revocation effective on the very next request, with no watcher to race.
 */
export class KeyStore {
  private byHash = new Map<string, KeyRecord>()
  private records: KeyRecord[] = []
  private fileIdentity = ''

  constructor(
    readonly file: string,
    private readonly now: () => Date = () => new Date(),
  ) {
    this.refresh({ strict: true })
  }

  list(): KeyRecord[] {
    this.refresh({ strict: true })
    return this.records.map((record) => ({ ...record }))
  }

  isEmpty(): boolean {
    this.refresh({ strict: true })
    return this.records.length === 0
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

  authenticate(key: string): AuthenticationResult {
    this.refresh({ strict: false })
    const record = this.byHash.get(hashApiKey(key))
    if (record === undefined) return { ok: false, reason: 'invalid' }
    const status = keyStatus(record, this.now())
    if (status !== 'active') return { ok: false, reason: status }
    return { ok: true, principal: { keyId: record.id, keyName: record.name, org: record.org, role: record.role } }
  }

  private currentRecords(): KeyRecord[] {
    this.refresh({ strict: true })
    return this.records
  }

  private save(records: KeyRecord[]): void {
    const file: KeyFile = { version: 1, keys: records }
    writeFileAtomic(this.file, JSON.stringify(file, null, 2) + '\n')
    this.fileIdentity = '' // force a re-read, so memory and disk cannot disagree
    this.refresh({ strict: true })
  }

  /**
   * Re-read the file if it changed. `strict` (CLI and start-up) throws on a corrupt file; the
   * request path instead keeps the last good keys and says so once, so a bad hand edit cannot
   * take the gateway down — and a corrupt file is never overwritten by us.
   */
  private refresh({ strict }: { strict: boolean }): void {
    let stats: BigIntStats | undefined
    try {
      stats = statSync(this.file, { bigint: true, throwIfNoEntry: false })
    } catch (error) {
      if (strict) throw new KeyStoreError(`Cannot read ${this.file}: ${(error as Error).message}`)
      return
    }
    const identity = stats === undefined ? 'missing' : `${stats.ino}:${stats.size}:${stats.mtimeNs}`
    if (identity === this.fileIdentity) return
    if (!strict && this.fileIdentity === `bad:${identity}`) return
    let records: KeyRecord[]
    try {
      records = stats === undefined ? [] : parseKeyFile(this.file, readFileSync(this.file, 'utf8'))
    } catch (error) {
      if (strict) throw error
      process.stderr.write(`mortar: ${(error as Error).message} Keeping the keys loaded before.\n`)
      this.fileIdentity = `bad:${identity}`
      return
    }
    this.records = records
    this.byHash = new Map(records.map((record) => [record.hash, record]))
    this.fileIdentity = identity
  }
}

function parseKeyFile(path: string, text: string): KeyRecord[] {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new KeyStoreError(`The key file ${path} is not valid JSON (${(error as Error).message}).`)
  }
  const parsed = keyFileSchema.safeParse(json)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue?.path.join('.') || '(top level)'
    throw new KeyStoreError(`The key file ${path} is not valid: ${where}: ${issue?.message ?? 'invalid'}.`)
  }
  return parsed.data.keys
}
