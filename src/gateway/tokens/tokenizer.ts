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
   * Counts `text` in slices: the same number `count(text)` gives, made by `advance` calls that
   * each do a bounded amount of work, so a caller can yield to the event loop between them
   * (a hostile multi-megabyte prompt must not stall every other stream). With `ids`, the text's
   * ids (`encode(text)`) are appended to it as they are found.
   */
  startCount(text: string, ids?: number[]): CountTask
  /**
   * Decode tokens into text pieces, one per token where it decodes to whole characters; a token
   * that ends inside a multi-byte character is merged with the next. `tokens` says how many each
   * piece holds, so nothing is lost from the count.
   */
  decodePieces(tokens: readonly number[]): Iterable<{ text: string; tokens: number }>
  /**
   * Numbers `count(parts.join(''))` always lies between, found in one linear pass, without
   * tokenizing — and without joining the parts where their text needs no more than its bytes
   * (joining a multi-megabyte message copies it, which costs as much as the pass).
   * Absent when the tokenizer knows no such bounds.
   */
  bounds?(parts: readonly string[]): TokenBounds
}

/**
 * For byte-level BPEs: every token holds at least one byte and at most the longest token's bytes
 * of the (normalized) text, so bytes / longest ≤ tokens ≤ bytes.
 */
export interface TokenBounds {
  lower: number
  upper: number
}

/** A count in progress: `count` so far; it is the text's count once `advance` returned true. */
export interface CountTask {
  /** Counts on, for at most about `budget` units of work (a byte or a merge step each); true once done. */
  advance(budget: number): boolean
  readonly count: number
}

/** A count with nothing left to do. */
export function countedTask(count: number): CountTask {
  return { advance: () => true, count }
}
