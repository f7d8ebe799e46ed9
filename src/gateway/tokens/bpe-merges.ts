/**
 * The merge table of a byte-pair-encoding model and the merge loop over it. A pair of token ids
 * maps to its merge's rank (its line in `merges`: lower merges first) and the id of the merged
 * token, in an open-addressing hash table over typed arrays: the hot loop does integer arithmetic
 * only, no string building and no Map of boxed keys.
 */
export class MergeTable {
  private readonly mask: number
  private readonly left: Int32Array
  private readonly right: Int32Array
  private readonly ranks: Int32Array
  private readonly merged: Int32Array

  constructor(pairCount: number) {
    let capacity = 1
    while (capacity < pairCount * 2) capacity <<= 1
    this.mask = capacity - 1
    this.left = new Int32Array(capacity).fill(-1)
    this.right = new Int32Array(capacity)
    this.ranks = new Int32Array(capacity)
    this.merged = new Int32Array(capacity)
  }

  /** Adds a merge; a pair already present keeps its first (lowest) rank, as Hugging Face's does. */
  add(left: number, right: number, rank: number, merged: number): void {
    let slot = hash(left, right) & this.mask
    while (this.left[slot] !== -1) {
      if (this.left[slot] === left && this.right[slot] === right) return
      slot = (slot + 1) & this.mask
    }
    this.left[slot] = left
    this.right[slot] = right
    this.ranks[slot] = rank
    this.merged[slot] = merged
  }

  /** The slot of a pair's merge, or -1 when the pair does not merge. */
  find(left: number, right: number): number {
    let slot = hash(left, right) & this.mask
    for (;;) {
      const stored = this.left[slot]!
      if (stored === -1) return -1
      if (stored === left && this.right[slot] === right) return slot
      slot = (slot + 1) & this.mask
    }
  }

  rank(slot: number): number {
    return slot === -1 ? NO_MERGE : this.ranks[slot]!
  }

  mergedId(slot: number): number {
    return this.merged[slot]!
  }
}

/** The rank of a pair that does not merge. */
export const NO_MERGE = 0x7fffffff

function hash(left: number, right: number): number {
  return (Math.imul(left, 0x9e3779b1) ^ Math.imul(right + 0x7f4a7c15, 0x85ebca77)) >>> 7
}

/** Words at most this long (in bytes) use the quadratic loop, which is fastest for short words. */
const SHORT_WORD = 48

/**
 * Applies the merges to one pre-tokenized word, given as the ids of its bytes (`ids` is consumed).
 * Always merges the pair of lowest rank, leftmost first on ties, until no pair merges: the order
 * of Hugging Face's `Word::merge_all`. Long words (runs of letters, whitespace, digits-free blobs)
 * take a heap-based loop, O(n log n), so a hostile 1 MB word cannot cost O(n²).
 */
export function mergeWord(table: MergeTable, ids: number[]): number[] {
  return ids.length <= SHORT_WORD ? mergeShort(table, ids) : mergeLong(table, ids)
}

function mergeShort(table: MergeTable, ids: number[]): number[] {
  // ranks[i] is the merge rank of (ids[i], ids[i + 1]); slots[i] where its result is found.
  const slots: number[] = []
  const ranks: number[] = []
  for (let i = 0; i + 1 < ids.length; i++) {
    const slot = table.find(ids[i]!, ids[i + 1]!)
    slots.push(slot)
    ranks.push(table.rank(slot))
  }
  for (;;) {
    let best = NO_MERGE
    let at = -1
    for (let i = 0; i < ranks.length; i++) {
      if (ranks[i]! < best) {
        best = ranks[i]!
        at = i
      }
    }
    if (at === -1) return ids
    ids[at] = table.mergedId(slots[at]!)
    ids.splice(at + 1, 1)
    slots.splice(at, 1)
    ranks.splice(at, 1)
    if (at > 0) {
      const slot = table.find(ids[at - 1]!, ids[at]!)
      slots[at - 1] = slot
      ranks[at - 1] = table.rank(slot)
    }
    if (at < ranks.length) {
      const slot = table.find(ids[at]!, ids[at + 1]!)
      slots[at] = slot
      ranks[at] = table.rank(slot)
    }
  }
}

function mergeLong(table: MergeTable, ids: number[]): number[] {
  const merge = new HeapMerge(ids.length, idPairRule(table, Int32Array.from(ids)))
  merge.run(Infinity)
  return merge.partsOf((position) => merge.rule.symbol[position]!)
}

/** The rule for words given as token ids: a pair merges by the merge table; `symbol` holds each part's id. */
export function idPairRule(table: MergeTable, symbol: Int32Array): PairRule & { symbol: Int32Array } {
  return {
    symbol,
    rank: (left, right) => table.rank(table.find(symbol[left]!, symbol[right]!)),
    merge: (left, right) => {
      symbol[left] = table.mergedId(table.find(symbol[left]!, symbol[right]!))
    },
  }
}

/**
 * How the parts of a word merge, for `HeapMerge`. Parts are named by the position of their first
 * symbol; `after` is the position of the part that follows `right` (-1 at the word's end), which
 * a rule that ranks the pair's bytes (tiktoken's) needs to know where `right` ends.
 */
export interface PairRule {
  /** The pair's rank (lower merges first), or `NO_MERGE`. */
  rank(left: number, right: number, after: number): number
  /** Makes `left` the merge of `left` and `right` (`right` is then gone). */
  merge(left: number, right: number): void
}

/**
 * Merges a word's parts lowest rank first, leftmost first on ties, with a heap: O(n log n), so a
 * hostile 1 MB word cannot cost O(n²). Resumable: `run(budget)` does at most `budget` steps (a
 * heap push or pop each) and says whether the word is done, so a caller can yield to the event
 * loop between slices of one huge word.
 */
export class HeapMerge<Rule extends PairRule = PairRule> {
  private readonly prev: Int32Array
  private readonly next: Int32Array
  /** 1 once a part was merged into its left neighbour (typed arrays start at 0: nothing to fill). */
  private readonly gone: Uint8Array
  private readonly heap = new PairHeap()
  /** How many positions are linked and their pairs pushed: that is done in slices too. */
  private filled = 0
  private partCount: number

  constructor(
    private readonly length: number,
    readonly rule: Rule,
  ) {
    this.prev = new Int32Array(length)
    this.next = new Int32Array(length)
    this.gone = new Uint8Array(length)
    this.partCount = length
  }

  /** How many parts are left: the word's token count once `run` returned true. */
  get parts(): number {
    return this.partCount
  }

  run(budget: number): boolean {
    const { heap, rule, next, prev, gone } = this
    const n = this.length
    while (this.filled < n) {
      if (budget-- <= 0) return false
      const i = this.filled++
      prev[i] = i - 1
      next[i] = i + 1 < n ? i + 1 : -1
      if (i + 1 < n) {
        const rank = rule.rank(i, i + 1, i + 2 < n ? i + 2 : -1)
        if (rank !== NO_MERGE) heap.push(rank, i)
      }
    }
    while (heap.size > 0) {
      if (budget-- <= 0) return false
      const rank = heap.topRank()
      const pos = heap.pop()
      if (gone[pos] === 1) continue
      const right = next[pos]!
      if (right === -1) continue
      const after = next[right]!
      // Stale entries (a neighbour merged since) no longer name this pair's rank.
      if (rule.rank(pos, right, after) !== rank) continue
      rule.merge(pos, right)
      this.partCount--
      gone[right] = 1
      next[pos] = after
      if (after !== -1) prev[after] = pos
      const before = prev[pos]!
      if (before !== -1) {
        const leftRank = rule.rank(before, pos, after)
        if (leftRank !== NO_MERGE) heap.push(leftRank, before)
      }
      if (after !== -1) {
        const rightRank = rule.rank(pos, after, next[after]!)
        if (rightRank !== NO_MERGE) heap.push(rightRank, pos)
      }
    }
    return true
  }

  /** Each remaining part, in order, as `of(position, end)` says (`end`: where the next part starts). */
  partsOf<T>(of: (position: number, end: number) => T): T[] {
    const out: T[] = []
    if (this.length === 0) return out
    for (let i = 0; i !== -1; i = this.next[i]!) out.push(of(i, this.next[i] === -1 ? this.length : this.next[i]!))
    return out
  }
}

/**
 * A binary min-heap of (rank, position), ordered by rank, then position. Typed arrays grown by
 * doubling: a million-entry heap grows in a few copies of plain memory, not JavaScript arrays.
 */
class PairHeap {
  private ranks = new Int32Array(64)
  private positions = new Int32Array(64)
  size = 0

  topRank(): number {
    return this.ranks[0]!
  }

  push(rank: number, position: number): void {
    if (this.size === this.ranks.length) this.grow()
    const { ranks, positions } = this
    let i = this.size++
    while (i > 0) {
      const parent = (i - 1) >> 1
      if (!less(rank, position, ranks[parent]!, positions[parent]!)) break
      ranks[i] = ranks[parent]!
      positions[i] = positions[parent]!
      i = parent
    }
    ranks[i] = rank
    positions[i] = position
  }

  /** Removes the top entry and returns its position. */
  pop(): number {
    const { ranks, positions } = this
    const top = positions[0]!
    const n = --this.size
    if (n === 0) return top
    const lastRank = ranks[n]!
    const lastPosition = positions[n]!
    let i = 0
    for (;;) {
      let child = 2 * i + 1
      if (child >= n) break
      if (child + 1 < n && less(ranks[child + 1]!, positions[child + 1]!, ranks[child]!, positions[child]!)) child++
      if (!less(ranks[child]!, positions[child]!, lastRank, lastPosition)) break
      ranks[i] = ranks[child]!
      positions[i] = positions[child]!
      i = child
    }
    ranks[i] = lastRank
    positions[i] = lastPosition
    return top
  }

  private grow(): void {
    const ranks = new Int32Array(this.ranks.length * 2)
    ranks.set(this.ranks)
    this.ranks = ranks
    const positions = new Int32Array(this.positions.length * 2)
    positions.set(this.positions)
    this.positions = positions
  }
}

function less(rankA: number, posA: number, rankB: number, posB: number): boolean {
  return rankA < rankB || (rankA === rankB && posA < posB)
}
