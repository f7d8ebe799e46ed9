import { HeapMerge, idPairRule, MergeTable, mergeWord } from './bpe-merges'
import type { CountTask, TokenBounds } from './tokenizer'

/** What a Hugging Face `tokenizer.json` holds for a byte-level BPE model, read by the loader. */
export interface ByteLevelBpeModel {
  /** Token text (in the byte-to-character alphabet below) → id. */
  vocab: Readonly<Record<string, number>>
  /** In priority order: `"a b"` (older files) or `["a", "b"]`. */
  merges: readonly (string | readonly [string, string])[]
  /** Tokens matched in the raw text before anything else, each encoded as its single id. */
  addedTokens: readonly { id: number; content: string }[]
}

export interface ByteLevelBpeOptions {
  /** The pre-tokenizer's split pattern, global and unicode (`gu`), every match a word. */
  preTokenizer: RegExp
  /** Unicode normalization applied to the text between added tokens, as the `normalizer` says. */
  normalization: 'NFC' | undefined
}

/**
 * The word cache is emptied when its keys reach this many UTF-16 units (~4 MB): memory stays
 * bounded whatever the input, and text repeats its words, so most lookups hit all the same.
 */
const WORD_CACHE_CHARS = 2_000_000
/** Words longer than this are merged every time rather than cached (they rarely repeat). */
const LONGEST_CACHED_WORD = 256

/**
 * A byte-level BPE tokenizer (GPT-2 style, as Qwen2.5 uses) over a Hugging Face model's vocab and
 * merges. It does what the Rust `tokenizers` library does, in this order: split out added tokens
 * (leftmost, longest) → normalize each text segment → split it into words with the pre-tokenizer
 * pattern → UTF-8 bytes of each word → merge by rank. The merge order is the library's, so the
 * ids are the model's own: `qwen-tokenizer.test.ts` proves it against the reference.
 */
export class ByteLevelBpe {
  private readonly merges: MergeTable
  private readonly byteIds = new Int32Array(256)
  private readonly tokenBytesStore = new TokenBytesStore()
  private readonly addedIds = new Map<string, number>()
  private readonly addedPattern: RegExp | undefined
  /** The first character every added token shares, if they share one: a cheap pre-check. */
  private readonly addedLead: string | undefined
  private readonly wordCache = new Map<string, number | number[]>()
  private wordCacheChars = 0
  private readonly utf8 = new TextEncoder()
  private readonly wordPattern: RegExp
  /** The most bytes one token holds (added tokens aside): what makes `bounds().lower` sound. */
  readonly longestTokenBytes: number

  constructor(
    model: ByteLevelBpeModel,
    private readonly options: ByteLevelBpeOptions,
  ) {
    if (!options.preTokenizer.global || !options.preTokenizer.unicode) {
      throw new Error('The pre-tokenizer pattern must have the g and u flags.')
    }
    this.wordPattern = new RegExp(options.preTokenizer.source, 'guy')
    const byteOfChar = byteLevelAlphabet()
    // for…in, not Object.entries: this loop runs over 150,000 entries at start-up.
    const store = this.tokenBytesStore
    let longest = 1
    for (const text in model.vocab) {
      const id = model.vocab[text]!
      // One character of the byte-level alphabet is one byte.
      if (text.length > longest) longest = text.length
      const at = store.reserve(id, text.length)
      const bytes = store.bytes
      for (let i = 0; i < text.length; i++) {
        const byte = byteOfChar[text.charCodeAt(i)] ?? -1
        if (byte === -1) throw new Error(`Vocab entry ${id} is not in the byte-level alphabet.`)
        bytes[at + i] = byte
      }
      if (text.length === 1) this.byteIds[bytes[at]!] = id
    }
    this.longestTokenBytes = longest
    for (let byte = 0; byte < 256; byte++) {
      if (store.get(this.byteIds[byte]!)?.[0] !== byte) throw new Error(`The vocab has no token for byte ${byte}.`)
    }

    this.merges = new MergeTable(model.merges.length)
    model.merges.forEach((merge, rank) => {
      const [left, right] = typeof merge === 'string' ? splitMerge(merge) : merge
      const leftId = model.vocab[left]
      const rightId = model.vocab[right]
      const mergedId = model.vocab[left + right]
      if (leftId === undefined || rightId === undefined || mergedId === undefined) {
        throw new Error(`Merge ${rank} names a token that is not in the vocab.`)
      }
      this.merges.add(leftId, rightId, rank, mergedId)
    })

    for (const { id, content } of model.addedTokens) {
      this.addedIds.set(content, id)
      const bytes = this.utf8.encode(content)
      store.bytes.set(bytes, store.reserve(id, bytes.length))
    }
    // Longest first, so that of two tokens starting at one place the longer wins.
    const contents = [...this.addedIds.keys()].sort((a, b) => b.length - a.length)
    this.addedPattern = contents.length === 0 ? undefined : new RegExp(contents.map(escapeRegExp).join('|'), 'g')
    const leads = new Set(contents.map((content) => content[0]))
    this.addedLead = leads.size === 1 ? contents[0]![0] : undefined
  }

  /** The ids of `text`, added tokens included (as `encode(text, add_special_tokens=False)`). */
  encode(text: string): number[] {
    const out: number[] = []
    this.eachSegment(
      text,
      (id) => out.push(id),
      (segment) => {
        this.eachWord(segment, (word) => {
          if (typeof word === 'number') out.push(word)
          else for (const id of word) out.push(id)
        })
      },
    )
    return out
  }

  /** `encode(text).length`, without building the list. */
  count(text: string): number {
    let total = 0
    this.eachSegment(
      text,
      () => total++,
      (segment) => {
        this.eachWord(segment, (word) => {
          total += typeof word === 'number' ? 1 : word.length
        })
      },
    )
    return total
  }

  /**
   * `count(text)` in slices (see `CountTask`): word by word, and a word too long to merge at once
   * (a megabyte of spaces is one word) merge step by merge step.
   */
  startCount(text: string, ids?: number[]): CountTask {
    // Added tokens are found up front (one native pass); their places are kept as numbers.
    const segments: (string | number)[] = []
    let count = 0
    this.eachSegment(
      text,
      (id) => segments.push(id),
      (segment) => segments.push(segment),
    )
    // Tasks interleave across awaits, so each has its own sticky pattern (its lastIndex is state).
    const pattern = new RegExp(this.wordPattern)
    let next = 0
    let current = ''
    let start = 0
    let pending: HeapMerge<ReturnType<typeof idPairRule>> | undefined
    const advance = (budget: number): boolean => {
      while (budget > 0) {
        if (pending !== undefined) {
          if (!pending.run(budget)) return false
          count += pending.parts
          if (ids !== undefined) for (const id of pending.partsOf((position) => pending!.rule.symbol[position]!)) ids.push(id)
          pending = undefined
          budget--
          continue
        }
        if (start >= current.length) {
          if (next === segments.length) return true
          const segment = segments[next++]!
          if (typeof segment === 'number') {
            count++
            ids?.push(segment)
            continue
          }
          current = this.normalize(segment)
          start = 0
          pattern.lastIndex = 0
          continue
        }
        if (!pattern.test(current)) throw new Error(`The pre-tokenizer pattern matches nothing at ${start}.`)
        const word = current.slice(start, pattern.lastIndex)
        start = pattern.lastIndex
        budget -= word.length
        if (word.length <= LONGEST_CACHED_WORD) {
          const wordIds = this.wordIds(word)
          if (typeof wordIds === 'number') {
            count++
            ids?.push(wordIds)
          } else {
            count += wordIds.length
            if (ids !== undefined) for (const id of wordIds) ids.push(id)
          }
        } else {
          const bytes = this.longWordByteIds(word)
          pending = new HeapMerge(bytes.length, idPairRule(this.merges, bytes))
        }
      }
      return false
    }
    return {
      advance,
      get count() {
        return count
      },
    }
  }

  /**
   * Bounds on `count(text)` found without tokenizing: every token holds at least one byte of the
   * normalized text and at most `longestTokenBytes`; an added token is one token for all its bytes.
   */
  bounds(text: string): TokenBounds {
    let lower = 0
    let upper = 0
    this.eachSegment(
      text,
      () => {
        lower++
        upper++
      },
      (segment) => {
        const bytes = utf8Length(this.normalize(segment))
        upper += bytes
        lower += Math.ceil(bytes / this.longestTokenBytes)
      },
    )
    return { lower, upper }
  }

  /**
   * `bounds(parts.join(''))`, without joining the parts when their text is one segment needing no
   * normalization: no part holds the first character of an added token (all of them begin with
   * it) nor a character normalization may change — each a test of one character, so true of the
   * whole text exactly when true of every part. Then the bounds are the text's UTF-8 bytes, summed
   * over the parts.
   */
  boundsOfParts(parts: readonly string[]): TokenBounds {
    const lead = this.addedLead
    for (const part of parts) {
      const mayHoldAdded = this.addedPattern !== undefined && (lead === undefined || part.includes(lead))
      if (mayHoldAdded || (this.options.normalization === 'NFC' && NEEDS_NORMALIZATION.test(part))) return this.bounds(parts.join(''))
    }
    const bytes = utf8LengthOfParts(parts)
    return { lower: Math.ceil(bytes / this.longestTokenBytes), upper: bytes }
  }

  /** The bytes a token stands for (an added token's are its text's), or undefined if unknown. */
  tokenBytes(id: number): Uint8Array | undefined {
    return this.tokenBytesStore.get(id)
  }

  private eachSegment(text: string, onAdded: (id: number) => void, onText: (segment: string) => void): void {
    const pattern = this.addedPattern
    if (pattern === undefined || (this.addedLead !== undefined && !text.includes(this.addedLead))) {
      if (text !== '') onText(text)
      return
    }
    let start = 0
    pattern.lastIndex = 0
    for (let match = pattern.exec(text); match !== null; match = pattern.exec(text)) {
      if (match.index > start) onText(text.slice(start, match.index))
      onAdded(this.addedIds.get(match[0])!)
      start = match.index + match[0].length
    }
    if (start < text.length) onText(text.slice(start))
  }

  private normalize(segment: string): string {
    // Below U+0300 every character is already NFC and composes with nothing before it.
    return this.options.normalization === 'NFC' && NEEDS_NORMALIZATION.test(segment) ? segment.normalize('NFC') : segment
  }

  private eachWord(segment: string, onWord: (word: number | readonly number[]) => void): void {
    const text = this.normalize(segment)
    const pattern = this.wordPattern
    // Sticky matching with test() finds each word's end without allocating a match array.
    let start = 0
    pattern.lastIndex = 0
    while (start < text.length) {
      if (!pattern.test(text)) throw new Error(`The pre-tokenizer pattern matches nothing at ${start}.`)
      const word = text.slice(start, pattern.lastIndex)
      start = pattern.lastIndex
      onWord(this.wordIds(word))
    }
  }

  /** A word's ids (one id as a number), from the word cache or merged (and then cached). */
  private wordIds(word: string): number | readonly number[] {
    const cached = this.wordCache.get(word)
    if (cached !== undefined) return cached
    const ids = mergeWord(this.merges, this.byteIdsOf(word))
    const entry = ids.length === 1 ? ids[0]! : ids
    if (word.length <= LONGEST_CACHED_WORD) {
      if (this.wordCacheChars + word.length > WORD_CACHE_CHARS) {
        this.wordCache.clear()
        this.wordCacheChars = 0
      }
      this.wordCache.set(word, entry)
      this.wordCacheChars += word.length
    }
    return entry
  }

  /** `byteIdsOf` for a long word, made with the native encoder into a typed array. */
  private longWordByteIds(word: string): Int32Array {
    const bytes = this.utf8.encode(word)
    const ids = new Int32Array(bytes.length)
    const byteIds = this.byteIds
    for (let i = 0; i < bytes.length; i++) ids[i] = byteIds[bytes[i]!]!
    return ids
  }

  /** The ids of the single-byte tokens of the word's UTF-8 bytes (lone surrogates as U+FFFD). */
  private byteIdsOf(word: string): number[] {
    const ids: number[] = []
    const byteIds = this.byteIds
    for (let i = 0; i < word.length; i++) {
      const c = word.charCodeAt(i)
      if (c < 0x80) {
        ids.push(byteIds[c]!)
      } else if (c < 0x800) {
        ids.push(byteIds[0xc0 | (c >> 6)]!, byteIds[0x80 | (c & 0x3f)]!)
      } else if (c >= 0xd800 && c <= 0xdbff && i + 1 < word.length && isLowSurrogate(word.charCodeAt(i + 1))) {
        const code = 0x10000 + ((c - 0xd800) << 10) + (word.charCodeAt(++i) - 0xdc00)
        ids.push(
          byteIds[0xf0 | (code >> 18)]!,
          byteIds[0x80 | ((code >> 12) & 0x3f)]!,
          byteIds[0x80 | ((code >> 6) & 0x3f)]!,
          byteIds[0x80 | (code & 0x3f)]!,
        )
      } else {
        const code = c >= 0xd800 && c <= 0xdfff ? 0xfffd : c
        ids.push(byteIds[0xe0 | (code >> 12)]!, byteIds[0x80 | ((code >> 6) & 0x3f)]!, byteIds[0x80 | (code & 0x3f)]!)
      }
    }
    return ids
  }
}

/** Every token's bytes in one buffer: making 150,000 small typed arrays would slow start-up. */
class TokenBytesStore {
  /** Write what `reserve` returns the offset of; replaced (grown) by `reserve`. */
  bytes = new Uint8Array(1 << 20)
  private used = 0
  private readonly starts: number[] = []
  private readonly ends: number[] = []

  /** Reserves `length` bytes for the token, to be written at the returned offset. */
  reserve(id: number, length: number): number {
    if (this.used + length > this.bytes.length) {
      const grown = new Uint8Array(Math.max(this.bytes.length * 2, this.used + length))
      grown.set(this.bytes.subarray(0, this.used))
      this.bytes = grown
    }
    const start = this.used
    this.starts[id] = start
    this.used += length
    this.ends[id] = this.used
    return start
  }

  get(id: number): Uint8Array | undefined {
    const start = this.starts[id]
    return start === undefined ? undefined : this.bytes.subarray(start, this.ends[id])
  }
}

const NEEDS_NORMALIZATION = /[\u0300-\uffff]/

function isLowSurrogate(c: number): boolean {
  return c >= 0xdc00 && c <= 0xdfff
}

/** UTF-8 length of a string, lone surrogates counted as U+FFFD (3 bytes), as TextEncoder does. */
export function utf8Length(text: string): number {
  // Native: an 8 MB prompt in ~1 ms, where a charCodeAt loop takes ~40 ms.
  return Buffer.byteLength(text, 'utf8')
}

/**
 * `utf8Length(parts.join(''))`, summed part by part — unless a part ends in a high surrogate,
 * whose pair the next part may complete (4 bytes together, 3 each apart): then of the joined text.
 */
export function utf8LengthOfParts(parts: readonly string[]): number {
  let bytes = 0
  for (const part of parts) {
    const last = part.charCodeAt(part.length - 1)
    if (last >= 0xd800 && last <= 0xdbff) return utf8Length(parts.join(''))
    bytes += utf8Length(part)
  }
  return bytes
}

/**
 * GPT-2's byte-level alphabet: every byte is written as a printable character (printable ASCII
 * and Latin-1 as themselves, the rest shifted to U+0100 and up), so vocab entries are strings.
 * Indexed by character code: the byte, or -1 for characters outside the alphabet.
 */
function byteLevelAlphabet(): Int16Array {
  const byteOfChar = new Int16Array(0x100 + 68).fill(-1)
  let shifted = 0
  for (let byte = 0; byte < 256; byte++) {
    const printable = (byte >= 0x21 && byte <= 0x7e) || (byte >= 0xa1 && byte <= 0xac) || (byte >= 0xae && byte <= 0xff)
    byteOfChar[printable ? byte : 0x100 + shifted++] = byte
  }
  return byteOfChar
}

function splitMerge(merge: string): [string, string] {
  const space = merge.indexOf(' ')
  if (space <= 0 || merge.indexOf(' ', space + 1) !== -1) throw new Error(`Malformed merge: ${JSON.stringify(merge)}`)
  return [merge.slice(0, space), merge.slice(space + 1)]
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}
