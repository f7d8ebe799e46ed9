import { readFileSync, statSync, type BigIntStats } from 'node:fs'

/**
 * A file's parsed content, re-read whenever the file changes. The file may be edited by another
 * process (`mortar keys revoke` while `mortar serve` runs, a user saving config.json), so each read
 * first compares the file's identity — inode, size and mtime in ns, one `stat` — with the last one,
 * and re-parses only when it differs. No watcher, so nothing can race between a write and the next
 * read. `strict` reads (start-up, the CLI) throw on a bad file; lenient ones (the request path)
 * keep the last good value and report the problem once, so a bad edit cannot take the gateway down.
 */
export class WatchedFile<T> {
  private value: T | undefined
  private identity: string | undefined
  private badIdentity: string | undefined

  constructor(
    readonly path: string,
    /** Parses the file's text, or `undefined` when the file does not exist. Throws on bad content. */
    private readonly parse: (text: string | undefined) => T,
    private readonly report: (message: string) => void = (message) => process.stderr.write(`mortar: ${message}\n`),
  ) {}

  read({ strict }: { strict: boolean }): T {
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
      this.report(`${(error as Error).message} Keeping the version loaded before.`)
      return this.value
    }
  }

  /** Forget the cached value, so the next read parses the file again (after our own write). */
  invalidate(): void {
    this.identity = undefined
  }
}
