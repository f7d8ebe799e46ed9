/**
 * A map from strings to values that holds at most `maxChars` UTF-16 code units of keys and values'
 * declared sizes together, dropping the least recently used entries first. Keys are whole texts:
 * a hit is exactly that text (Map compares by content), so nothing a client sends can be mistaken
 * for something else. Entries larger than a quarter of the budget are not kept, so one huge text
 * cannot push out everybody else's.
 */
export class BoundedStringMap<V> {
  private readonly entries = new Map<string, { value: V; size: number }>()
  private usedChars = 0
  private readonly largestEntry: number

  constructor(private readonly maxChars: number) {
    this.largestEntry = Math.floor(maxChars / 4)
  }

  /** The value kept for `key` (and marks it most recently used), or undefined. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    // Most recently used last: Map keeps insertion order.
    this.entries.delete(key)
    this.entries.set(key, entry)
    return entry.value
  }

  has(key: string): boolean {
    return this.entries.has(key)
  }

  /** Keeps `value` for `key`, counted as the key's length plus `valueChars`, if it fits the rule above. */
  set(key: string, value: V, valueChars = 0): void {
    const size = key.length + valueChars
    if (size > this.largestEntry || this.entries.has(key)) return
    this.entries.set(key, { value, size })
    this.usedChars += size
    for (const [oldest, entry] of this.entries) {
      if (this.usedChars <= this.maxChars) break
      this.entries.delete(oldest)
      this.usedChars -= entry.size
    }
  }

  /** How many entries and characters it holds. */
  get size(): { entries: number; chars: number } {
    return { entries: this.entries.size, chars: this.usedChars }
  }
}
