import { readFileSync, statSync, watch, type BigIntStats, type FSWatcher } from 'node:fs'
import { basename, dirname } from 'node:path'
import { errorText } from '../../shared/narrow'

/** With a watcher, how often the file is still checked by `stat`: the bound if its events go missing. */
export const SAFETY_CHECK_MS = 1_000

/**
 * A file's parsed content, re-read whenever the file changes. The file may be edited by another
 * process (`mortar keys revoke` while `mortar serve` runs, a user saving config.json).
 *
 * How a change is noticed: a read compares the file's identity — inode, size and mtime in ns, one
 * `stat` — with the last one, and re-parses only when it differs. Strict reads (start-up, the CLI)
 * always do. Lenient reads (the request path) watch the file's directory instead, and `stat` only
 * after the watcher reported a change there — or a second after the last check, in case its events
 * go missing (network file systems): two `stat` calls per request were a measurable share of a
 * request's time (docs/benchmark.md). The kernel queues the watcher's event when the file is
 * written, before any later request can arrive, so an edit is still in effect from the next
 * request on. Without a watcher (it could not start) every lenient read checks, as strict ones do.
 *
 * Lenient reads keep the last good value when the file turns bad and report the problem once, so a
 * bad edit cannot take the gateway down; strict reads throw.
 */
export class WatchedFile<T> {
  private value: T | undefined
  private identity: string | undefined
  private badIdentity: string | undefined
  private watcher: FSWatcher | undefined
  /** `stopped`: closed, or it failed; never started again, so every lenient read checks. */
  private watchState: 'off' | 'on' | 'stopped' = 'off'
  private changed = true
  private checkedAt = 0

  constructor(
    readonly path: string,
    /** Parses the file's text, or `undefined` when the file does not exist. Throws on bad content. */
    private readonly parse: (text: string | undefined) => T,
    private readonly report: (message: string) => void = (message) => process.stderr.write(`mortar: ${message}\n`),
  ) {}

  read({ strict }: { strict: boolean }): T {
    if (!strict && this.value !== undefined && this.watching() && !this.changed && performance.now() - this.checkedAt < SAFETY_CHECK_MS) {
      return this.value
    }
    // Cleared before the check: an event that arrives during it marks the file changed again.
    this.changed = false
    this.checkedAt = performance.now()
    let stats: BigIntStats | undefined
    try {
      stats = statSync(this.path, { bigint: true, throwIfNoEntry: false })
    } catch (error) {
      if (strict || this.value === undefined) throw error
      return this.value
    }
    const identity = stats === undefined ? 'missing' : `${stats.ino}:${stats.size}:${stats.mtimeNs}`
    if (identity === this.identity && this.value !== undefined) return this.value
    if (!strict && identity === this.badIdentity && this.value !== undefined) return this.value
    try {
      this.value = this.parse(stats === undefined ? undefined : readFileSync(this.path, 'utf8'))
      this.identity = identity
      this.badIdentity = undefined
      return this.value
    } catch (error) {
      if (strict || this.value === undefined) throw error
      this.badIdentity = identity
      this.report(`${errorText(error)} Keeping the version loaded before.`)
      return this.value
    }
  }

  /** Forget the cached value, so the next read parses the file again (after our own write). */
  invalidate(): void {
    this.identity = undefined
    this.changed = true
  }

  /** Stop watching (the gateway is closing, or the watcher failed); reads then check the file every time. */
  close(): void {
    this.watcher?.close()
    this.watcher = undefined
    this.watchState = 'stopped'
    this.changed = true
  }

  /** Whether a watcher is reporting changes; started on the first lenient read. */
  private watching(): boolean {
    if (this.watchState === 'off') this.startWatching()
    return this.watchState === 'on'
  }

  private startWatching(): void {
    const name = basename(this.path)
    try {
      // The directory, not the file: an atomic write replaces the file, and a watch on the old one
      // would see nothing after that. Not persistent: a watcher must not keep the process alive.
      this.watcher = watch(dirname(this.path), { persistent: false }, (_event, filename) => {
        if (filename === null || filename === name) this.changed = true
      })
      this.watcher.on('error', () => this.close())
      this.watchState = 'on'
      // Whatever happened before the watcher existed, it did not see: check once more.
      this.changed = true
    } catch {
      this.watchState = 'stopped'
    }
  }
}
