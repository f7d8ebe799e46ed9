/**
 * MurmurHash3's 32-bit finalizer: every bit of the input moves about half the output's bits, so
 * close inputs (consecutive token ids, similar names) land far apart. Unsigned.
 */
export function mix32(value: number): number {
  let h = value >>> 0
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}
