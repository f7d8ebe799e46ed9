import o200k from 'gpt-tokenizer/encoding/o200k_base'
import type { Tokenizer } from './tokenizer'

/**
 * OpenAI's o200k_base encoding (gpt-tokenizer), the estimate for models whose own tokenizer we
 * don't ship. Loading the ranks takes ~230 ms, which happens once, when this module is imported
 * at start-up: never on a request.
 */
export const o200kTokenizer: Tokenizer = {
  name: 'o200k_base',
  exact: false,
  encode: (text) => o200k.encode(text),
  count: (text) => (text === '' ? 0 : o200k.countTokens(text)),
  decodePieces: (tokens) => decodePiecesWith(o200k.decodeGenerator, tokens),
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
