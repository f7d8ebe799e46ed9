import { mix32 } from './mix32'
import { evictUntil, type SecondChance } from './second-chance'

/**
 * How many characters of each part the fingerprint samples (spread over the part, its first and
 * last included). Enough that two different texts of one length rarely share a bucket.
 */
const SAMPLES_PER_PART = 16
/** At most this many entries share one fingerprint; the oldest of them goes first. */
const BUCKET_LIMIT = 8

/**
 * What an entry's bucket is found by. `sampledFingerprint` (the default) reads a few characters of
 * each part; `longestPart` is the longest part itself, for parts that come as the same string
 * objects time after time.
 */
export type BucketKey = (parts: readonly string[]) => number | string

interface Entry<V> extends SecondChance {
  readonly fingerprint: number | string
  readonly parts: readonly string[]
  readonly size: number
  value: V
}

/** What an entry counts against the budget: its text (the parts' characters) and its value's declared size. */
function entrySize(parts: readonly string[], valueChars: number): number {
  let size = valueChars
  for (const part of parts) size += part.length
  return size
}

/**
 * A map from texts given as their parts (a list of strings, read as their concatenation but never
 * concatenated) to values, holding at most `maxChars` UTF-16 code units of keys and values'
 * declared sizes, those unused longest first out (second-chance.ts). Entries larger than a quarter of the budget are
 * not kept.
 *
 * Why not a Map keyed by the text: a Map hashes its key, and V8 hashes a string of up to 16,383
 * characters in full (~1.4 µs per KB here) — a conversation's history costs that on every turn —
 * and a text built by `+` is copied whole (flattened) before it is hashed or compared. Here the key
 * is a fingerprint of a few characters sampled from each part (or, for parts that are the same
 * string objects on every lookup, the longest part: `longestPart`), and a hit is then proven by
 * comparing the parts with `===`: V8 compares two flat strings natively (memcmp), without hashing
 * or copying them. So a lookup costs a comparison of the text, not a hash and a copy of it.
 *
 * A hit is exactly the parts given (same count, each equal), so its value is that of exactly this
 * text; a text split into parts differently is a miss, never a wrong value. Texts that share a
 * fingerprint (a client can make them) share a bucket of at most BUCKET_LIMIT entries, so
 * they cost at most that many comparisons, and push out only each other.
 */
export class PartsMap<V> {
  private readonly buckets = new Map<number | string, Entry<V>[]>()
  /** Every entry, oldest first (a Map keeps insertion order), evicted by second chance. */
  private readonly recency = new Map<Entry<V>, Entry<V>>()
  private usedChars = 0
  private readonly largestEntry: number

  constructor(
    private readonly maxChars: number,
    private readonly bucketKey: BucketKey = sampledFingerprint,
  ) {
    this.largestEntry = Math.floor(maxChars / 4)
  }

  /** The value kept for the text made of `parts` (and marks it used), or undefined. */
  get(parts: readonly string[]): V | undefined {
    const entry = this.find(this.bucketKey(parts), parts)
    if (entry === undefined) return undefined
    entry.used = true
    return entry.value
  }

  /**
   * Keeps `value` for the text made of `parts`, counted as its length plus `valueChars`, if it fits
   * the rule above; a text kept already keeps its entry (and size) with the new value.
   */
  set(parts: readonly string[], value: V, valueChars = 0): void {
    const size = entrySize(parts, valueChars)
    if (size > this.largestEntry) return
    const fingerprint = this.bucketKey(parts)
    const kept = this.find(fingerprint, parts)
    if (kept !== undefined) {
      kept.value = value
      return
    }
    let bucket = this.buckets.get(fingerprint)
    if (bucket === undefined) {
      bucket = []
      this.buckets.set(fingerprint, bucket)
    } else if (bucket.length >= BUCKET_LIMIT) {
      this.drop(bucket[0]!)
    }
    // The parts are copied into a list of their own: the caller's list may change; its strings cannot.
    const entry: Entry<V> = { fingerprint, parts: parts.slice(), size, value, used: false }
    bucket.push(entry)
    this.recency.set(entry, entry)
    this.usedChars += size
    evictUntil(this.recency, () => this.usedChars <= this.maxChars, (oldest) => this.drop(oldest))
  }

  /** Whether `set` would keep an entry for these parts and value size: a caller need not make one that it would not. */
  keeps(parts: readonly string[], valueChars = 0): boolean {
    return entrySize(parts, valueChars) <= this.largestEntry
  }

  /** How many entries and characters it holds. */
  get size(): { entries: number; chars: number } {
    return { entries: this.recency.size, chars: this.usedChars }
  }

  private find(fingerprint: number | string, parts: readonly string[]): Entry<V> | undefined {
    const bucket = this.buckets.get(fingerprint)
    if (bucket === undefined) return undefined
    for (const entry of bucket) if (sameParts(entry.parts, parts)) return entry
    return undefined
  }

  private drop(entry: Entry<V>): void {
    const bucket = this.buckets.get(entry.fingerprint)
    if (bucket !== undefined) {
      const at = bucket.indexOf(entry)
      if (at !== -1) bucket.splice(at, 1)
      if (bucket.length === 0) this.buckets.delete(entry.fingerprint)
    }
    if (this.recency.delete(entry)) this.usedChars -= entry.size
  }
}

function sameParts(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}

/**
 * Each part's length and SAMPLES_PER_PART of its characters, mixed into 32 bits one by one (mix32):
 * constant work per part, whatever its length, and a number for a key (no string to build or hash).
 */
export function sampledFingerprint(parts: readonly string[]): number {
  let hash = parts.length
  for (const part of parts) {
    const length = part.length
    hash = mix(hash, length)
    if (length === 0) continue
    const last = length - 1
    for (let i = 0; i < SAMPLES_PER_PART; i++) hash = mix(hash, part.charCodeAt(Math.floor((last * i) / (SAMPLES_PER_PART - 1))))
  }
  return hash
}

const mix = (hash: number, value: number): number => mix32(hash + value)

/**
 * The longest part (the first of equal length), as the bucket's key. V8 keeps a string's hash in
 * the string once it has computed it, so when the long part is the same string object on every
 * lookup (a remembered message's text, a cached rendering) the lookup reads no character of it;
 * a new string of equal text is hashed once (all of it up to 16,383 characters, only its length
 * past that) and then compared. Not for parts sliced anew from each request's body: every lookup
 * would hash the text in full.
 */
export function longestPart(parts: readonly string[]): string {
  let longest = ''
  for (const part of parts) if (part.length > longest.length) longest = part
  return longest
}
