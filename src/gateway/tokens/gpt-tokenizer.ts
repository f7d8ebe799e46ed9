import o200k from 'gpt-tokenizer/encoding/o200k_base'
import { HeapMerge, NO_MERGE, type PairRule } from './bpe-merges'
import { utf8Length, utf8LengthOfParts } from './byte-level-bpe'
import type { CountTask, Tokenizer } from './tokenizer'

/**
 * OpenAI's o200k_base encoding (gpt-tokenizer), the estimate for models whose own tokenizer we
 * don't ship. Loading the ranks takes ~230 ms, which happens once, when this module is imported
 * at start-up: never on a request.
 *
 * Text that looks like one of OpenAI's special tokens (`<|endoftext|>`) is counted as ordinary
 * text: gpt-tokenizer would otherwise throw on it, and a client's message may contain anything.
 *
 * Counting splits the text with gpt-tokenizer's own pattern and merges each piece by its ranks,
 * as gpt-tokenizer does, with one difference in cost only: gpt-tokenizer's merge loop is O(n²) in
 * a piece's length (a megabyte of spaces is one piece and would take hours), so pieces longer
 * than `LONG_PIECE` characters are merged here with the heap (`HeapMerge`, O(n log n)) under the
 * same rule — lowest rank first, leftmost on ties — which gives the same tokens
 * (`gpt-tokenizer.test.ts` checks it against gpt-tokenizer's own count).
 */
const asText = { disallowedSpecial: new Set<string>() }

/**
 * What counting uses of gpt-tokenizer's encoder core, which its types keep private. The version
 * is pinned; a change of shape is caught here at start-up and by the equality tests.
 */
interface EncoderCore {
  tokenSplitRegex: RegExp
  bytePairRankDecoder: readonly (string | readonly number[] | undefined)[]
  getBpeRankFromString(piece: string): number | undefined
  getBpeRankFromBytes(bytes: Uint8Array): number | undefined
  bytePairEncode(piece: string): number[]
}

const core = (o200k as unknown as { bytePairEncodingCoreProcessor: EncoderCore }).bytePairEncodingCoreProcessor
if (typeof core?.getBpeRankFromBytes !== 'function' || !(core.tokenSplitRegex instanceof RegExp)) {
  throw new Error('gpt-tokenizer changed: its encoder core is not the shape o200k counting expects.')
}

/** Pieces up to this many characters go through gpt-tokenizer's own (cached, quadratic) merge. */
const LONG_PIECE = 64

/** The most bytes one o200k token holds: what makes `bounds().lower` sound. */
export const O200K_LONGEST_TOKEN_BYTES = core.bytePairRankDecoder.reduce<number>(
  (longest, token) => Math.max(longest, token === undefined ? 0 : typeof token === 'string' ? utf8Length(token) : token.length),
  1,
)

const utf8 = new TextEncoder()

/** tiktoken's rule: two adjacent parts merge if their bytes together are a token, by its rank. */
function rankedBytesRule(bytes: Uint8Array): PairRule {
  return {
    rank: (left, _right, after) => {
      const end = after === -1 ? bytes.length : after
      if (end - left > O200K_LONGEST_TOKEN_BYTES) return NO_MERGE
      return core.getBpeRankFromBytes(bytes.subarray(left, end)) ?? NO_MERGE
    },
    // A part is the bytes from its position to the next part's: merging needs no bookkeeping.
    merge: () => {},
  }
}

/** One piece's ids, or the merge that will give them when the piece is long. */
function encodePiece(piece: string): number | readonly number[] | { merge: HeapMerge; bytes: Uint8Array } {
  const id = core.getBpeRankFromString(piece)
  if (id !== undefined) return id
  if (piece.length <= LONG_PIECE) return core.bytePairEncode(piece)
  const bytes = utf8.encode(piece)
  return { merge: new HeapMerge(bytes.length, rankedBytesRule(bytes)), bytes }
}

function startO200kCount(text: string, ids?: number[]): CountTask {
  const pattern = new RegExp(core.tokenSplitRegex.source, core.tokenSplitRegex.flags.includes('g') ? core.tokenSplitRegex.flags : core.tokenSplitRegex.flags + 'g')
  let count = 0
  let pending: { merge: HeapMerge; bytes: Uint8Array } | undefined
  let done = false
  const advance = (budget: number): boolean => {
    while (budget > 0 && !done) {
      if (pending !== undefined) {
        const { merge, bytes } = pending
        if (!merge.run(budget)) return false
        count += merge.parts
        if (ids !== undefined) for (const id of merge.partsOf((start, end) => core.getBpeRankFromBytes(bytes.subarray(start, end))!)) ids.push(id)
        pending = undefined
        budget--
        continue
      }
      const match = pattern.exec(text)
      if (match === null) {
        done = true
        break
      }
      const piece = match[0]
      if (piece === '') {
        pattern.lastIndex++
        continue
      }
      budget -= piece.length
      const encoded = encodePiece(piece)
      if (typeof encoded === 'number') {
        count++
        ids?.push(encoded)
      } else if ('merge' in encoded) {
        pending = encoded
      } else {
        count += encoded.length
        if (ids !== undefined) for (const id of encoded) ids.push(id)
      }
    }
    return done
  }
  return {
    advance,
    get count() {
      return count
    },
  }
}

export const o200kTokenizer: Tokenizer = {
  name: 'o200k_base',
  exact: false,
  encode: (text) => o200k.encode(text, asText),
  count: (text) => {
    const task = startO200kCount(text)
    task.advance(Infinity)
    return task.count
  },
  startCount: startO200kCount,
  decodePieces: (tokens) => decodePiecesWith(o200k.decodeGenerator, tokens),
  // Byte-level BPE without normalization: every token holds at least one byte, at most the longest's.
  bounds: (parts) => {
    const bytes = utf8LengthOfParts(parts)
    return { lower: Math.ceil(bytes / O200K_LONGEST_TOKEN_BYTES), upper: bytes }
  },
}

function* decodePiecesWith(
  decodeGenerator: (tokens: Iterable<number>) => Generator<string, void, void>,
  tokens: readonly number[],
): Generator<{ text: string; tokens: number }> {
  // decodeGenerator buffers tokens that end mid-character; counting what it pulls from the
  // source tells how many tokens each yielded piece holds.
  let consumed = 0
  let reported = 0
  const source = (function* () {
    for (const token of tokens) {
      consumed++
      yield token
    }
  })()
  for (const text of decodeGenerator(source)) {
    yield { text, tokens: consumed - reported }
    reported = consumed
  }
  if (consumed > reported) yield { text: '', tokens: consumed - reported }
}
