import { mix32 } from '../../mix32'

/**
 * Rendezvous (highest-random-weight) hashing: each key ranks every replica by hash(replica, key)
 * and takes the highest. Adding or removing a replica moves only the keys that ranked it first,
 * and when a replica is down its keys fall to their second choice — each key its own, so a dead
 * replica's sessions spread over the others instead of piling onto one.
 */
export function rendezvousOrder<T extends { id: string }>(items: readonly T[], key: string): T[] {
  return items
    .map((item) => ({ item, score: hash32(item.id + '\u0000' + key) }))
    .sort((a, b) => b.score - a.score || (a.item.id < b.item.id ? -1 : 1))
    .map(({ item }) => item)
}

/** FNV-1a over UTF-16 code units, then murmur3's finalizer so close inputs spread apart. */
export function hash32(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return mix32(h)
}
