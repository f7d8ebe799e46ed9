import { evictUntil, type SecondChance } from './second-chance'

/**
 * A map from strings to values that holds at most `maxChars` UTF-16 code units of keys and values'
 * declared sizes together, dropping those unused longest first (second-chance.ts). Keys are whole texts:
 * a hit is exactly that text (Map compares by content), so nothing a client sends can be mistaken
 * for something else. Entries larger than a quarter of the budget are not kept, so one huge text
 * cannot push out everybody else's.
 */
export class BoundedStringMap<V> {
  private readonly entries = new Map<string, { value: V; size: number } & SecondChance>()
  private usedChars = 0
  private readonly largestEntry: number

  constructor(private readonly maxChars: number) {
    this.largestEntry = Math.floor(maxChars / 4)
  }

  /** The value kept for `key` (and marks it used), or undefined. */
  get(key: string): V | undefined {
    const entry = this.entries.get(key)
    if (entry === undefined) return undefined
    entry.used = true
    return entry.value
  }

  has(key: string): boolean {
    return this.entries.has(key)
  }

  /** Keeps `value` for `key`, counted as the key's length plus `valueChars`, if it fits the rule above. */
  set(key: string, value: V, valueChars = 0): void {
    const size = key.length + valueChars
    if (size > this.largestEntry || this.entries.has(key)) return
    this.entries.set(key, { value, size, used: false })
    this.usedChars += size
    evictUntil(this.entries, () => this.usedChars <= this.maxChars, (oldest, entry) => {
      this.entries.delete(oldest)
      this.usedChars -= entry.size
    })
  }

  /** How many entries and characters it holds. */
  get size(): { entries: number; chars: number } {
    return { entries: this.entries.size, chars: this.usedChars }
  }
}
