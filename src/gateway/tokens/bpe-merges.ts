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

const NO_MERGE = 0x7fffffff

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
  const n = ids.length
  const symbol = Int32Array.from(ids)
  const prev = new Int32Array(n)
  const next = new Int32Array(n)
  for (let i = 0; i < n; i++) {
    prev[i] = i - 1
    next[i] = i + 1 < n ? i + 1 : -1
  }
  const heap = new PairHeap()
  for (let i = 0; i + 1 < n; i++) {
    const slot = table.find(symbol[i]!, symbol[i + 1]!)
    if (slot !== -1) heap.push(table.rank(slot), i)
  }
  const alive = new Uint8Array(n).fill(1)
  while (heap.size > 0) {
    const rank = heap.topRank()
    const pos = heap.pop()
    if (alive[pos] === 0) continue
    const right = next[pos]!
    if (right === -1) continue
    // Stale entries (a neighbour merged since) no longer name this pair's rank.
    const slot = table.find(symbol[pos]!, symbol[right]!)
    if (table.rank(slot) !== rank) continue
    symbol[pos] = table.mergedId(slot)
    alive[right] = 0
    const after = next[right]!
    next[pos] = after
    if (after !== -1) prev[after] = pos
    const before = prev[pos]!
    if (before !== -1) {
      const left = table.find(symbol[before]!, symbol[pos]!)
      if (left !== -1) heap.push(table.rank(left), before)
    }
    if (after !== -1) {
      const rightSlot = table.find(symbol[pos]!, symbol[after]!)
      if (rightSlot !== -1) heap.push(table.rank(rightSlot), pos)
    }
  }
  const out: number[] = []
  for (let i = 0; i !== -1; i = next[i]!) out.push(symbol[i]!)
  return out
}

/** A binary min-heap of (rank, position), ordered by rank, then position. */
class PairHeap {
  private ranks: number[] = []
  private positions: number[] = []

  get size(): number {
    return this.ranks.length
  }

  topRank(): number {
    return this.ranks[0]!
  }

  push(rank: number, position: number): void {
    const { ranks, positions } = this
    let i = ranks.length
    ranks.push(rank)
    positions.push(position)
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
    const lastRank = ranks.pop()!
    const lastPosition = positions.pop()!
    const n = ranks.length
    if (n === 0) return top
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
}

function less(rankA: number, posA: number, rankB: number, posB: number): boolean {
  return rankA < rankB || (rankA === rankB && posA < posB)
}
