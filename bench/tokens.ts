/**
 * Token accounting benchmark: `npm run bench:tokens`. Not a test; prints tables for docs/tokens.md.
 *
 * 1. Loading: Qwen2.5's tokenizer (read + parse tokenizer.json, build) and gpt-tokenizer's o200k.
 * 2. Counting throughput (MB/s of UTF-8) on the same corpus for both: the repo's own source and
 *    docs, a real JSON file, generated numbers/IDs tables, and the multilingual test corpus.
 *    "first pass" is each tokenizer's first sight of the text; "steady" the median of later passes
 *    (both tokenizers cache merged words, so repeated words get cheaper).
 * 3. Planning cost per request for a 4,096-token (Qwen) conversation: the chat template rendered
 *    and counted with no history cache, with the history cached and one new message, and fully
 *    cached; and the whole planTokens stage.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { ChatMessage, ChatTool } from '../src/shared/api/chat-request'
import { planTokens } from '../src/gateway/pipeline/plan-tokens'
import { chatGenerationRequest } from '../src/gateway/endpoints/chat-completions/chat-completions-endpoint'
import { validateChatRequest } from '../src/gateway/pipeline/validate-request'
import { countTemplateTokens, renderQwen2Prompt } from '../src/gateway/tokens/chat-template'
import { PromptCounter } from '../src/gateway/tokens/prompt-counter'
import { createQwen25Tokenizer, readQwenTokenizerJson } from '../src/gateway/tokens/qwen-tokenizer'
import { TOKEN_CORPUS } from '../src/gateway/tokens/test-support/token-corpus'
import type { Tokenizer } from '../src/gateway/tokens/tokenizer'

const ROOT = join(__dirname, '..')

async function main(): Promise<void> {
  const load = measureLoads()
  const o200kStarted = performance.now()
  const { o200kTokenizer } = await import('../src/gateway/tokens/gpt-tokenizer')
  const o200kLoadMs = performance.now() - o200kStarted
  const qwen = load.tokenizer

  console.log(`# Token accounting benchmark (node ${process.version}, ${new Date().toISOString().slice(0, 10)})\n`)
  console.log('## Loading (once per process)\n')
  table(
    ['tokenizer', 'read + JSON.parse', 'build', 'total'],
    [
      ['qwen2.5', ms(load.parseMs), ms(load.buildMs), ms(load.parseMs + load.buildMs)],
      ['o200k_base (gpt-tokenizer, module import)', '', '', ms(o200kLoadMs)],
    ],
  )

  console.log('\n## Counting throughput\n')
  const rows: string[][] = []
  for (const [name, text] of Object.entries(corpus())) {
    const bytes = Buffer.byteLength(text)
    const q = throughput(qwen, text)
    const o = throughput(o200kTokenizer, text)
    rows.push([
      name,
      kb(bytes),
      `${q.tokens} / ${o.tokens} (${signed(q.tokens / o.tokens - 1)})`,
      mbs(bytes, q.firstMs),
      mbs(bytes, q.steadyMs),
      mbs(bytes, o.firstMs),
      mbs(bytes, o.steadyMs),
    ])
  }
  table(['corpus', 'size', 'tokens qwen / o200k', 'qwen first pass', 'qwen steady', 'o200k first pass', 'o200k steady'], rows)

  const conversation = conversationOf4096(qwen)
  const shape = `${conversation.messages.length} messages and ${conversation.tools.length} tool, plus one new user message per request`
  console.log(`\n## Planning one request: a 4,096-token conversation (${shape})\n`)
  const planRows: string[][] = []
  for (const tokenizer of [qwen, o200kTokenizer]) planRows.push(...(await planningCost(tokenizer, conversation)))
  table(['tokenizer', 'what is counted', 'per request (median)', 'p99'], planRows)
}

function measureLoads(): { tokenizer: Tokenizer; parseMs: number; buildMs: number } {
  const started = performance.now()
  const json = readQwenTokenizerJson()
  const parsed = performance.now()
  const tokenizer = createQwen25Tokenizer(json)
  return { tokenizer, parseMs: parsed - started, buildMs: performance.now() - parsed }
}

function corpus(): Record<string, string> {
  const files = [...walk(join(ROOT, 'src')), ...walk(join(ROOT, 'docs'))].filter((f) => /\.(ts|tsx|md)$/.test(f)).sort()
  return {
    'repo source + docs (code, prose)': files.map((f) => readFileSync(f, 'utf8')).join('\n'),
    'package-lock.json (JSON)': readFileSync(join(ROOT, 'package-lock.json'), 'utf8'),
    'numbers / IDs table (generated)': numbersTable(2_000),
    'multilingual test corpus ×20': Array.from({ length: 20 }, () => Object.values(TOKEN_CORPUS).join('\n')).join('\n'),
  }
}

function* walk(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* walk(path)
    else yield path
  }
}

/** Rows of IDs, amounts, timestamps and hashes: what Qwen counts digit by digit. Seeded: repeatable. */
function numbersTable(rows: number): string {
  let seed = 42
  const next = () => (seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0)
  const hex = (n: number) => Array.from({ length: n }, () => (next() % 16).toString(16)).join('')
  const lines = ['| order | customer | amount | placed at | sha |', '|---|---|---:|---|---|']
  for (let i = 0; i < rows; i++) {
    const when = new Date(1_700_000_000_000 + (next() % 50_000_000) * 1000).toISOString()
    lines.push(`| ORD-${100000 + (next() % 900000)} | ${hex(8)}-${hex(4)} | ${(next() % 1_000_000) / 100} | ${when} | ${hex(16)} |`)
  }
  return lines.join('\n')
}

function throughput(tokenizer: Tokenizer, text: string): { tokens: number; firstMs: number; steadyMs: number } {
  let started = performance.now()
  const tokens = tokenizer.count(text)
  const firstMs = performance.now() - started
  const runs: number[] = []
  const until = performance.now() + 1_500
  while (runs.length < 5 || (performance.now() < until && runs.length < 50)) {
    started = performance.now()
    tokenizer.count(text)
    runs.push(performance.now() - started)
  }
  return { tokens, firstMs, steadyMs: median(runs) }
}

interface Conversation {
  messages: ChatMessage[]
  tools: ChatTool[]
}

/** A conversation of about 4,096 Qwen tokens: tools, prose, code, JSON tool results, numbers, Chinese. */
function conversationOf4096(qwen: Tokenizer): Conversation {
  const tools: ChatTool[] = [
    {
      type: 'function',
      function: {
        name: 'search_orders',
        description: 'Find orders by customer, status or date range.',
        parameters: {
          type: 'object',
          properties: { customer: { type: 'string' }, status: { type: 'string', enum: ['open', 'shipped', 'returned'] } },
          required: ['customer'],
        },
      },
    },
  ]
  const samples = Object.values(TOKEN_CORPUS)
  const messages: ChatMessage[] = [{ role: 'system', content: 'You are a support assistant for an online shop. Be precise.' }]
  for (let turn = 0; ; turn++) {
    const user: ChatMessage = { role: 'user', content: `Turn ${turn}: ${samples[turn % samples.length]!.slice(0, 400)}` }
    const assistant: ChatMessage = { role: 'assistant', content: `Answer ${turn}: ${samples[(turn + 3) % samples.length]!.slice(0, 300)}` }
    const next = [...messages, user, assistant]
    if (countTemplateTokens(renderQwen2Prompt(next, tools), qwen) > 4_040) break
    messages.push(user, assistant)
  }
  return { messages, tools }
}

async function planningCost(tokenizer: Tokenizer, { messages, tools }: Conversation): Promise<string[][]> {
  const newMessage = (i: number): ChatMessage => ({ role: 'user', content: `Follow-up ${i}: and order ORD-${100000 + i}, please?` })
  const prompt = (i: number) => [...messages, newMessage(i)]
  const total = countTemplateTokens(renderQwen2Prompt(prompt(0), tools), tokenizer)
  const rows: string[][] = []
  const row = (what: string, times: number[]) => rows.push([`${tokenizer.name}`, what, us(median(times)), us(percentile(times, 0.99))])

  // Every turn re-tokenizes the whole conversation (the tokenizer's own word cache is warm).
  row(`no history cache: render + count all ${total} tokens`, timeEach(200, (i) => countTemplateTokens(renderQwen2Prompt(prompt(i), tools), tokenizer)))

  // The history is cached from the previous turn; only the new message is tokenized.
  const counter = new PromptCounter(tokenizer)
  counter.count(renderQwen2Prompt(messages, tools))
  row('history cached, new message counted', timeEach(2_000, (i) => counter.count(renderQwen2Prompt(prompt(1_000 + i), tools))))
  row('all cached (same prompt again)', timeEach(2_000, () => counter.count(renderQwen2Prompt(prompt(1_000), tools))))

  // The planTokens stage as a request runs it, promptTokens read (usage), history cached.
  const validate = (json: unknown) => chatGenerationRequest(validateChatRequest(json))
  const model = { tokenizer, contextWindow: 32_768, defaultMaxTokens: 1024 }
  const body = (i: number) => ({ model: 'm', messages: prompt(5_000 + i), tools })
  await planTokens(model, validate({ model: 'm', messages, tools }))
  const requests = Array.from({ length: 2_020 }, (_, i) => validate(body(i)))
  row('planTokens, history cached, then promptTokens read', await timeEachAsync(2_000, async (i) => (await planTokens(model, requests[i]!)).promptTokens))
  const more = Array.from({ length: 2_020 }, (_, i) => validate(body(10_000 + i)))
  row('planTokens, history cached, promptTokens not read', await timeEachAsync(2_000, async (i) => (await planTokens(model, more[i]!)).maxTokens))

  // A conversation never seen (every message new, as on a gateway's first request for it).
  const unseen = (i: number) =>
    validate({ model: 'm', messages: prompt(i).map((m) => ({ ...m, content: `[${i}] ${m.content ?? ''}` })), tools })
  const fresh = Array.from({ length: 440 }, (_, i) => unseen(20_000 + i))
  row('planTokens, nothing cached, promptTokens read', await timeEachAsync(200, async (i) => (await planTokens(model, fresh[i]!)).promptTokens))
  row('planTokens, nothing cached, promptTokens not read', await timeEachAsync(200, async (i) => (await planTokens(model, fresh[220 + i]!)).maxTokens))
  return rows
}

function timeEach(runs: number, work: (i: number) => unknown): number[] {
  for (let i = 0; i < Math.min(runs, 20); i++) work(runs + i) // warm up the JIT, not the caches under test
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    work(i)
    times.push(performance.now() - started)
  }
  return times
}

async function timeEachAsync(runs: number, work: (i: number) => Promise<unknown>): Promise<number[]> {
  for (let i = 0; i < Math.min(runs, 20); i++) await work(runs + i)
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    await work(i)
    times.push(performance.now() - started)
  }
  return times
}

function median(values: number[]): number {
  return percentile(values, 0.5)
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!
}

const ms = (value: number) => `${value.toFixed(0)} ms`
const us = (millis: number) => (millis >= 1 ? `${millis.toFixed(2)} ms` : `${(millis * 1000).toFixed(0)} µs`)
const kb = (bytes: number) => `${(bytes / 1024).toFixed(0)} KB`
const mbs = (bytes: number, millis: number) => `${(bytes / 1e6 / (millis / 1000)).toFixed(1)} MB/s`
const signed = (ratio: number) => `${ratio >= 0 ? '+' : ''}${(ratio * 100).toFixed(1)}%`

function table(header: string[], rows: string[][]): void {
  console.log(`| ${header.join(' | ')} |`)
  console.log(`|${header.map(() => '---').join('|')}|`)
  for (const row of rows) console.log(`| ${row.join(' | ')} |`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})
