import type { KeyRecord } from './key-records'

/** The records of a key store, indexed for the request path's lookups. */
export interface KeyIndex {
  records: KeyRecord[]
  byHash: Map<string, KeyRecord>
  byId: Map<string, KeyRecord>
}

/**
 * A change of the keys, applied atomically to the records as they are in the store then: returns
 * the new records and what to tell the caller, or throws (KeyStoreError) to change nothing.
 */
export type KeyChange<T> = (records: readonly KeyRecord[], now: Date) => { records: readonly KeyRecord[]; result: T }

/**
 * Where a KeyStore's records live: keys.json on one machine, Redis for a cluster. Reads are
 * synchronous (every request authenticates, and never waits for a disk or a network); changes are
 * applied against the records as the store holds them at that moment, so no change undoes another.
 */
export interface KeyRecordsSource {
  /** What `mortar` calls the place, in errors and logs (`keys.json at …`, `Redis`). */
  readonly description: string
  /**
   * The records as known now. `strict` (start-up, the CLI, listings): throw a KeyStoreError when
   * they cannot be read (a corrupt file, an unreachable Redis whose last copy is too old);
   * lenient (the request path): the last good copy where one is allowed.
   */
  read(options: { strict: boolean }): KeyIndex
  apply<T>(change: KeyChange<T>, now: Date): Promise<T>
  /** `apply`, blocking while it waits: only a source on this machine's disk can offer it. */
  applySync?<T>(change: KeyChange<T>, now: Date): T
  /** Told after every change, made here or elsewhere (another instance, the CLI), once it is known. */
  onChange(listener: () => void): () => void
  close(): void
}

export function indexKeys(records: KeyRecord[]): KeyIndex {
  return {
    records,
    byHash: new Map(records.map((record) => [record.hash, record])),
    byId: new Map(records.map((record) => [record.id, record])),
  }
}
