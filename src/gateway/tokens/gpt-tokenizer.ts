import o200k from 'gpt-tokenizer/encoding/o200k_base'
import { utf8Length } from './byte-level-bpe'
import type { Tokenizer } from './tokenizer'

/**
 * OpenAI's o200k_base encoding (gpt-tokenizer), the estimate for models whose own tokenizer we
 * don't ship. Loading the ranks takes ~230 ms, which happens once, when this module is imported
 * at start-up: never on a request.
 *
 * Text that looks like one of OpenAI's special tokens (`<|endoftext|>`) is counted as ordinary
 * text: gpt-tokenizer would otherwise throw on it, and a client's message may contain anything.
 */
const asText = { disallowedSpecial: new Set<string>() }

export const o200kTokenizer: Tokenizer = {
  name: 'o200k_base',
  exact: false,
  encode: (text) => o200k.encode(text, asText),
  count: (text) => (text === '' ? 0 : o200k.countTokens(text, asText)),
  decodePieces: (tokens) => decodePiecesWith(o200k.decodeGenerator, tokens),
  // Byte-level BPE without normalization: every token holds at least one byte.
  upperBound: (text) => utf8Length(text),
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
