import { o200kTokenizer } from './gpt-tokenizer'
import { createQwen25Tokenizer } from './qwen-tokenizer'
import type { Tokenizer } from './tokenizer'

/**
 * The tokenizers a model's config may name: `qwen2.5` is exact for the Qwen2.5 family;
 * `o200k_base` (OpenAI's, from gpt-tokenizer) is the estimate for models whose tokenizer we don't
 * ship.
 */
export const TOKENIZER_NAMES = ['qwen2.5', 'o200k_base'] as const
export type TokenizerName = (typeof TOKENIZER_NAMES)[number]

const factories: Record<TokenizerName, () => Tokenizer> = {
  'qwen2.5': () => createQwen25Tokenizer(),
  o200k_base: () => o200kTokenizer,
}

const loaded = new Map<TokenizerName, { tokenizer: Tokenizer; loadMs: number }>()

/**
 * The tokenizer by that name, built on the first call and shared after that. Building Qwen2.5's
 * takes ~0.35 s (reading and indexing its 7 MB vocab), so call this while starting up — when the
 * model catalog is made — and never first on a request.
 */
export function loadTokenizer(name: TokenizerName): Tokenizer {
  let entry = loaded.get(name)
  if (entry === undefined) {
    const started = performance.now()
    const tokenizer = factories[name]()
    entry = { tokenizer, loadMs: performance.now() - started }
    loaded.set(name, entry)
  }
  return entry.tokenizer
}

/**
 * How long building the named tokenizer took, in ms; undefined until it is loaded. (o200k_base's
 * ranks load when gpt-tokenizer.ts is imported, so its time here is ~0.)
 */
export function tokenizerLoadMs(name: TokenizerName): number | undefined {
  return loaded.get(name)?.loadMs
}
