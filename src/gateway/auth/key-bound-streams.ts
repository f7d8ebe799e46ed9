import type { KeyStore, KeyValidity } from './key-store'

/** While any stream is open, how often its key is checked again (expiry; changes by other processes). */
export const KEY_CHECK_INTERVAL_MS = 1_000

interface BoundStream {
  keyId: string
  end(validity: Exclude<KeyValidity, 'active'>): void
}

/**
 * Long-lived streams that are not generations (the telemetry subscriptions), each bound to the key
 * that opened it, and ended when that key stops being valid: revoked, rotated away (the old key is
 * revoked) or expired. A key is checked again after every change the store learns of (a revocation
 * over /v1/keys ends its streams before the response is sent; one made on another instance of a
 * cluster as soon as Redis announces it), and every KEY_CHECK_INTERVAL_MS while any stream is
 * open, which catches expiry and changes by other processes (`mortar keys revoke`) — by the file's
 * watcher or, failing it, a `stat`.
 */
export class KeyBoundStreams {
  private readonly streams = new Set<BoundStream>()
  private timer: NodeJS.Timeout | undefined
  private readonly stopListening: () => void

  constructor(
    private readonly keys: KeyStore,
    private readonly intervalMs = KEY_CHECK_INTERVAL_MS,
  ) {
    this.stopListening = keys.onChange(() => this.check())
  }

  get size(): number {
    return this.streams.size
  }

  /** Bind a stream to its key; returns the function to call when the stream ends by itself. */
  add(keyId: string, end: BoundStream['end']): () => void {
    const stream: BoundStream = { keyId, end }
    this.streams.add(stream)
    // Not keeping the process alive: a stream's own socket does that.
    this.timer ??= setInterval(() => this.check(), this.intervalMs).unref()
    return () => this.remove(stream)
  }

  /** End every stream whose key is no longer valid. */
  check(): void {
    for (const stream of this.streams) {
      const validity = this.keys.validityOf(stream.keyId)
      if (validity === 'active') continue
      this.remove(stream)
      stream.end(validity)
    }
  }

  close(): void {
    this.stopListening()
    for (const stream of [...this.streams]) this.remove(stream)
  }

  private remove(stream: BoundStream): void {
    this.streams.delete(stream)
    if (this.streams.size === 0 && this.timer !== undefined) {
      clearInterval(this.timer)
      this.timer = undefined
    }
  }
}
