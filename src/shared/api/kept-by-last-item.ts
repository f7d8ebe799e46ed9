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
export const ENTRIES_KEPT = 256

/** What is kept of an array: its items (those that never change, or stand-ins `same` matches), and what was made of them. */
export interface KeptArray {
  readonly items: readonly unknown[]
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
 * the newest ENTRIES_KEPT entries at most: an item that stays remembered while its conversation
 * went another way (an edited turn) would otherwise keep its entry as long as it lives.
 */
export class KeptByLastItem<T extends KeptArray> {
  private readonly byLast = new WeakMap<object, T>()
  /** The newest entries' keys, oldest first. */
  private readonly keys: WeakRef<object>[] = []

  /** `same`: whether a kept item stands for an item of a later array (by default, the same object). */
  constructor(
    private readonly same: (kept: unknown, item: unknown) => boolean = sameObject,
    private readonly limit: number = ENTRIES_KEPT,
  ) {}

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

  /** Keeps `entry` by its last item (which must be frozen), in place of `extended`, the entry it was made from. */
  keep(entry: T, extended: T | undefined): void {
    const last = entry.items.at(-1)
    if (!isFrozenObject(last)) return
    const replaced = extended?.items.at(-1)
    if (isFrozenObject(replaced) && replaced !== last) this.byLast.delete(replaced)
    if (!this.byLast.has(last)) {
      this.keys.push(new WeakRef(last))
      if (this.keys.length > this.limit) {
        const oldest = this.keys.shift()!.deref()
        if (oldest !== undefined) this.byLast.delete(oldest)
      }
    }
    this.byLast.set(last, entry)
  }
}
