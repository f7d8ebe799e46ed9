import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { Tokenizer as HfTokenizer } from '@huggingface/tokenizers'
import { QWEN_TOKENIZER_JSON } from '../qwen-tokenizer'

/**
 * The reference for tests: Hugging Face's own JavaScript tokenizer (`@huggingface/tokenizers`,
 * a devDependency), reading the same tokenizer.json. It translates the Rust library's regex
 * semantics to JavaScript with care, and is what `qwen2.5` must equal, id for id.
 */
export interface ReferenceTokenizer {
  encode(text: string): number[]
  decode(ids: readonly number[]): string
}

export function loadQwenReference(tokenizerJson: unknown): ReferenceTokenizer {
  const require = createRequire(import.meta.url)
  const configPath = require.resolve(QWEN_TOKENIZER_JSON.replace('tokenizer.json', 'tokenizer_config.json'))
  const reference = new HfTokenizer(tokenizerJson as object, JSON.parse(readFileSync(configPath, 'utf8')) as object)
  return {
    encode: (text) => reference.encode(text, { add_special_tokens: false }).ids,
    decode: (ids) => reference.decode([...ids], { skip_special_tokens: false }),
  }
}
