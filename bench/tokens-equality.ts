/**
 * A wider equality sweep than the unit tests can afford: `npx tsx bench/tokens-equality.ts`.
 * Encodes real files (this repo's source and docs, and the README/Markdown files of every package
 * in node_modules: English, code, tables, some CJK) and seeded random text with both the
 * gateway's Qwen2.5 tokenizer and the reference (@huggingface/tokenizers), and reports every
 * text whose ids differ. Exits non-zero on any difference.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { createQwen25Tokenizer, readQwenTokenizerJson } from '../src/gateway/tokens/qwen-tokenizer'
import { loadQwenReference } from '../src/gateway/tokens/test-support/qwen-reference'
import { TOKEN_CORPUS } from '../src/gateway/tokens/test-support/token-corpus'

const ROOT = join(__dirname, '..')
const MAX_FILE_BYTES = 200_000

const json = readQwenTokenizerJson()
const qwen = createQwen25Tokenizer(json)
const reference = loadQwenReference(json)

function* walk(dir: string, accept: (path: string) => boolean): Generator<string> {
  let names: string[]
  try {
    names = readdirSync(dir)
  } catch {
    return
  }
  for (const name of names) {
    const path = join(dir, name)
    const stat = statSync(path, { throwIfNoEntry: false })
    if (stat === undefined) continue
    if (stat.isDirectory()) yield* walk(path, accept)
    else if (stat.size <= MAX_FILE_BYTES && accept(path)) yield path
  }
}

const texts: [string, string][] = [
  ...[...walk(join(ROOT, 'src'), (p) => /\.(ts|tsx|md|css|html)$/.test(p)), ...walk(join(ROOT, 'docs'), () => true)].map(
    (p): [string, string] => [p, readFileSync(p, 'utf8')],
  ),
  ...[...walk(join(ROOT, 'node_modules'), (p) => /\.md$/i.test(p))].map((p): [string, string] => [p, readFileSync(p, 'utf8')]),
  ...Object.entries(TOKEN_CORPUS),
]

const fragment = fc.oneof(
  fc.string({ unit: 'binary', maxLength: 16 }),
  fc.string({ unit: 'grapheme', maxLength: 16 }),
  fc.constantFrom("'s", "'LL", "'", ' ', '   ', '\n', '\r\n', '\t', '\u00a0', '\u3000', '\u0085', '\ufeff', '\u0301'),
  fc.constantFrom('123', '٣', '½', 'ﬁ', '👩‍👧', '🇨🇭', '你好', '<|im_end|>', '<tool_call>', '<|im_', 'Hello', ' world', '{"a": 1}'),
)
const random = fc.sample(fc.array(fragment, { maxLength: 40 }).map((parts) => parts.join('')), { numRuns: 20_000, seed: 20250131 })
// The one known divergence of the JavaScript reference from the Rust tokenizer (see the tests).
for (const [i, text] of random.entries()) if (!text.includes("'ſ")) texts.push([`random #${i}`, text])

let chars = 0
let tokens = 0
const differing: string[] = []
const started = performance.now()
for (const [name, text] of texts) {
  const ours = qwen.encode(text)
  const theirs = reference.encode(text)
  chars += text.length
  tokens += theirs.length
  if (ours.length !== theirs.length || ours.some((id, i) => id !== theirs[i])) differing.push(name)
}
const seconds = ((performance.now() - started) / 1000).toFixed(1)
console.log(`${texts.length} texts (${random.length} random), ${(chars / 1e6).toFixed(2)} M characters, ${tokens} tokens, ${seconds} s`)
console.log(differing.length === 0 ? 'ids equal to the reference for every text' : `${differing.length} differ:\n${differing.join('\n')}`)
if (differing.length > 0) process.exitCode = 1
