/** Every refusal of a key store: the CLI prints the message as it is, the API maps each kind. */
export class KeyStoreError extends Error {
  override name = 'KeyStoreError'
}

/** The key file itself is the problem: it does not parse, or cannot be locked or written. */
export class KeyFileError extends KeyStoreError {
  override name = 'KeyFileError'
}

/** Another process held the key file's lock for the whole bounded wait. */
export class KeyFileBusyError extends KeyFileError {
  override name = 'KeyFileBusyError'
}

/**
 * The keys live in Redis and Redis cannot be reached: no change can be made, and a copy older than
 * the store's staleness bound is no longer used to accept requests.
 */
export class KeysUnavailableError extends KeyStoreError {
  override name = 'KeysUnavailableError'
}

/** No key has that ID (in the store as it is now). */
export class KeyNotFoundError extends KeyStoreError {
  override name = 'KeyNotFoundError'
  constructor(readonly id: string) {
    super(`No key has the ID ${id}. \`mortar keys list\` shows them.`)
  }
}
