/**
 * How many of an array's last items are tried as the end of one kept before: a turn adds a reply
 * and the results of its tool calls (several, for parallel calls).
 */
const NEWEST_ITEMS_TRIED = 16

/**
 * How many of the newest entries' keys are held: an entry whose key has fallen out is dropped.
 * Each turn adds a key (the one it replaced stays in the count until it falls out), so this is the
 * turns of all conversations between two turns of one that still find its entry.
 */
const ENTRIES_KEPT = 256

/**
 * How large the entries held may be in all, each as its keeper measures it (the characters or
 * bytes of what it made of its array, about the size of that array's text). An entry is found by
 * its last item, which may be small; it holds every item before it, and what was made of them, as
 * long as it is kept: of 320 conversations of 378 KB, the newest 256 held 424 MB of heap and 216
 * MB off it. 8 Mi leaves room for sixteen conversations of 500 KB (an agent's 128k-token window)
 * between their turns, or sixty-four of 128 KB; the entries' memory is a few times their size (the
 * items as objects, and the bytes).
 */
export const ENTRIES_SIZE_KEPT = 8 * 1024 * 1024

/** What is kept of an array: its items (those that never change, or stand-ins `same` matches), and what was made of them. */
export interface KeptArray {
  readonly items: readonly unknown[]
}

/** One entry's place among the newest: its key, and its size while it is held (0 once dropped). */
interface Slot {
  readonly key: WeakRef<object>
  size: number
}

const sameObject = (kept: unknown, item: unknown): boolean => kept === item

/** Whether a value is a frozen object: only such a one is an unchanging element, and so a key here. */
export const isFrozenObject = (value: unknown): value is object => typeof value === 'object' && value !== null && Object.isFrozen(value)

/**
 * What was made of a conversation's array (its JSON, its measured prompt), kept by its last item
 * for the next turn: an agent sends its whole history again with items added, so what was made of
 * the items it sent before is taken as it was, and only the new ones are worked on. Only an array
 * whose last item is frozen (a remembered element, handed again only to the organization that
 * sent it) is kept or found. One entry per conversation (`keep` drops the entry it extends), and
 * the newest entries only, within a count (ENTRIES_KEPT) and a size (ENTRIES_SIZE_KEPT), oldest
 * out first: an item that stays remembered while its conversation went another way (an edited
 * turn) would otherwise keep its entry, and all the items before it, as long as it lives.
 */
export class KeptByLastItem<T extends KeptArray> {
  private readonly byLast = new WeakMap<object, T>()
  /** The newest entries' places, oldest first. */
  private readonly slots: Slot[] = []
  private readonly slotOf = new WeakMap<object, Slot>()
  /** The sizes of the entries held, in all. */
  private heldSize = 0

  /** `same`: whether a kept item stands for an item of a later array (by default, the same object). */
  constructor(
    private readonly same: (kept: unknown, item: unknown) => boolean = sameObject,
    private readonly limit: number = ENTRIES_KEPT,
    private readonly maxSize: number = ENTRIES_SIZE_KEPT,
  ) {}

  /** The sizes of the entries held, in all (for tests). */
  get size(): number {
    return this.heldSize
  }

  /**
   * The entry `items` begin with (item for item, per `same`), if one ends at one of their newest
   * items and `fits` it (`end`: how many of `items` it holds).
   */
  find(items: readonly unknown[], fits: (kept: T, end: number) => boolean = () => true): T | undefined {
    for (let end = items.length; end > 0 && end > items.length - NEWEST_ITEMS_TRIED; end--) {
      const item = items[end - 1]
      if (!isFrozenObject(item)) continue
      const kept = this.byLast.get(item)
      if (kept === undefined || kept.items.length !== end || !fits(kept, end)) continue
      let same = true
      // Mostly the very same objects: told so without calling `same`.
      for (let i = 0; i < end - 1 && same; i++) same = kept.items[i] === items[i] || this.same(kept.items[i], items[i])
      if (same) return kept
    }
    return undefined
  }

  /**
   * Keeps `entry` (of `size`, as its keeper measures it) by its last item (which must be frozen),
   * in place of `extended`, the entry it was made from. One larger than all that may be held is
   * not kept.
   */
  keep(entry: T, extended: T | undefined, size: number): void {
    const last = entry.items.at(-1)
    if (!isFrozenObject(last)) return
    const replaced = extended?.items.at(-1)
    if (isFrozenObject(replaced) && replaced !== last) this.drop(replaced)
    if (size > this.maxSize) return this.drop(last)
    let slot = this.slotOf.get(last)
    if (slot === undefined) {
      slot = { key: new WeakRef(last), size: 0 }
      this.slots.push(slot)
      this.slotOf.set(last, slot)
    }
    this.heldSize += size - slot.size
    slot.size = size
    this.byLast.set(last, entry)
    while (this.slots.length > this.limit || this.heldSize > this.maxSize) this.dropOldest()
  }

  /** The entry kept by `key` goes; its place stays in the count until it falls out. */
  private drop(key: object): void {
    this.byLast.delete(key)
    const slot = this.slotOf.get(key)
    if (slot === undefined) return
    this.heldSize -= slot.size
    slot.size = 0
    this.slotOf.delete(key)
  }

  private dropOldest(): void {
    const slot = this.slots.shift()!
    const key = slot.key.deref()
    if (key !== undefined && this.slotOf.get(key) === slot) this.drop(key)
    // An entry whose key was collected went with it; its size is counted until its place falls out.
    else this.heldSize -= slot.size
  }
}
