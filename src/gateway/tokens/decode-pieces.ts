/**
 * Decodes tokens into text pieces without ever splitting a UTF-8 character: a token whose bytes end
 * inside a character is held back and merged with the tokens that complete it. `tokens` says how
 * many tokens each piece holds, so the pieces' counts add up to the input's length.
 */
export function* decodeBytePieces(
  tokens: readonly number[],
  bytesOf: (token: number) => Uint8Array | undefined,
): Generator<{ text: string; tokens: number }> {
  // ignoreBOM keeps a U+FEFF that starts a piece: it is text, not a byte-order mark.
  const decoder = new TextDecoder('utf-8', { ignoreBOM: true })
  let pending = new Uint8Array(64)
  let length = 0
  let held = 0
  for (const token of tokens) {
    const bytes = bytesOf(token)
    if (bytes === undefined) throw new RangeError(`Token ${token} is not in the vocabulary.`)
    if (length + bytes.length > pending.length) {
      const grown = new Uint8Array(Math.max(pending.length * 2, length + bytes.length))
      grown.set(pending.subarray(0, length))
      pending = grown
    }
    pending.set(bytes, length)
    length += bytes.length
    held++
    if (endsMidCharacter(pending, length)) continue
    yield { text: decoder.decode(pending.subarray(0, length)), tokens: held }
    length = 0
    held = 0
  }
  // Only tokens that never complete their character get here (not the output of `encode`).
  if (held > 0) yield { text: decoder.decode(pending.subarray(0, length)), tokens: held }
}

/**
 * Whether the bytes end with the start of a multi-byte character that more bytes could complete.
 * Invalid sequences count as complete: no further byte would mend them, so they are not held.
 */
export function endsMidCharacter(bytes: Uint8Array, length: number): boolean {
  let continuation = 0
  let i = length - 1
  while (i >= 0 && continuation < 3 && (bytes[i]! & 0xc0) === 0x80) {
    continuation++
    i--
  }
  if (i < 0) return false
  const lead = bytes[i]!
  const needed = lead >= 0xf0 && lead <= 0xf4 ? 3 : lead >= 0xe0 && lead < 0xf0 ? 2 : lead >= 0xc2 && lead < 0xe0 ? 1 : 0
  return continuation < needed
}
