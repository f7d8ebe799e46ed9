/**
 * The most bytes decoded into one string. V8 allocates a string of 128 KB or more in its
 * large-object space, a mapping of its own: decoding 128 KB costs ~150 µs so, against ~11 µs for
 * 120 KB (and the garbage collector frees such a string only in a full collection).
 */
export const PIECE_BYTES = 64 * 1024

/**
 * The text of ASCII bytes `[start, end)`, decoded in pieces of at most PIECE_BYTES joined with
 * `+`: a concatenation, which stays one as long as nothing flattens it (a search, a comparison,
 * `JSON.parse`, a slice), so no large string is made. Latin-1 decoding is exact for ASCII and a
 * plain copy.
 */
export function asciiText(bytes: Buffer, start = 0, end = bytes.length): string {
  if (end - start <= PIECE_BYTES) return bytes.toString('latin1', start, end)
  let text = ''
  for (let at = start; at < end; at += PIECE_BYTES) text += bytes.toString('latin1', at, Math.min(end, at + PIECE_BYTES))
  return text
}
