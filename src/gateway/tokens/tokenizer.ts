/**
 * Token counting behind one interface, so a model's exact tokenizer can replace the estimate
 * without the rest of the gateway noticing. `exact` says whether counts match the model's own.
 */
export interface Tokenizer {
  readonly name: string
  readonly exact: boolean
  /** The text's ids. Special-token text in it (`<|im_end|>`) is that one token, as the model server reads it. */
  encode(text: string): number[]
  count(text: string): number
  /**
   * Decode tokens into text pieces, one per token where it decodes to whole characters; a token
   * that ends inside a multi-byte character is merged with the next. `tokens` says how many each
   * piece holds, so nothing is lost from the count.
   */
  decodePieces(tokens: readonly number[]): Iterable<{ text: string; tokens: number }>
  /**
   * A number `count(text)` never exceeds, found much faster than counting (for byte-level BPEs:
   * the text's UTF-8 length). Absent when the tokenizer knows no such bound.
   */
  upperBound?(text: string): number
}
