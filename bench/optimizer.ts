/**
 * Prompt optimizer benchmark: `npx tsx bench/optimizer.ts`. Not a test; prints tables for
 * docs/optimizer.md.
 *
 * 1. Cost per request of the `optimizePrompt` stage for a typical agent conversation (22 messages,
 *    ~4k Qwen2.5 tokens: a system prompt, JSON tool results pretty-printed as APIs and files return
 *    them, an aligned table, a JSON-fenced search result, source code, prose), in each deployment
 *    mode and header; and for a prose-only conversation of the same size (the skip-fast path).
 * 2. What it saves on that conversation: bytes, and Qwen2.5 tokens of the rendered chat template.
 * 3. Throughput of each pass alone on one large input.
 */
import type { ChatCompletionRequest, ChatMessage, ChatTool } from '../src/shared/api/chat-request'
import { collapseSpaces } from '../src/gateway/optimizer/collapse-spaces'
import { compactJson } from '../src/gateway/optimizer/json-compact'
import { compactJsonBlocks } from '../src/gateway/optimizer/json-tool-blocks'
import { optimizePrompt } from '../src/gateway/pipeline/optimize-prompt'
import type { OptimizerMode } from '../src/shared/api/optimizer'
import { countTemplateTokens, renderQwen2Prompt } from '../src/gateway/tokens/chat-template'
import { createQwen25Tokenizer } from '../src/gateway/tokens/qwen-tokenizer'

const RUNS = 20_000

/** A chat request as the optimizer stage sees it: a conversation. */
type Conversation = ChatCompletionRequest & { kind: 'messages' }

function main(): void {
  const agent = agentConversation()
  const prose = proseConversation(agent)
  const qwen = createQwen25Tokenizer()
  const tokens = (messages: readonly ChatMessage[]) => countTemplateTokens(renderQwen2Prompt(messages, agent.tools), qwen)

  console.log(`# Prompt optimizer benchmark (node ${process.version}, ${new Date().toISOString().slice(0, 10)})\n`)
  console.log(
    `Agent conversation: ${agent.messages.length} messages, ${bytes(agent.messages)} bytes of content, ` +
      `${tokens(agent.messages)} Qwen2.5 tokens rendered. Prose conversation: ${prose.messages.length} messages, ` +
      `${bytes(prose.messages)} bytes, no JSON, no fences.\n`,
  )

  console.log('## Cost per request (the whole optimizePrompt stage)\n')
  const cases: Array<[string, Conversation, OptimizerMode, string | undefined]> = [
    ['agent', agent, 'off', undefined],
    ['agent', agent, 'shadow', 'off'],
    ['agent', agent, 'shadow', undefined],
    ['agent', agent, 'on', undefined],
    ['agent', agent, 'on', 'json-tool-blocks'],
    ['agent', agent, 'on', 'json-tool-blocks,collapse-spaces'],
    ['prose', prose, 'shadow', undefined],
    ['prose', prose, 'on', 'json-tool-blocks,collapse-spaces'],
  ]
  table(
    ['conversation', 'deployment', 'X-Mortar-Optimize', 'median µs', 'p99 µs', 'report'],
    cases.map(([name, request, mode, header]) => {
      const run = () => optimizePrompt(request, header, { deploymentMode: mode, orgDefault: undefined })
      const times = timeEach(RUNS, run)
      return [name, mode, header ?? '(none)', us(median(times)), us(percentile(times, 0.99)), run().report.replace(/elapsed_us=\d+/, 'elapsed_us=…')]
    }),
  )

  console.log('\n## What it saves on the agent conversation\n')
  const before = tokens(agent.messages)
  table(
    ['X-Mortar-Optimize (deployment on)', 'bytes saved', 'Qwen2.5 tokens', 'tokens saved'],
    [undefined, 'json-tool-blocks', 'json-tool-blocks,collapse-spaces'].map((header) => {
      const out = optimizePrompt(agent, header, { deploymentMode: 'on', orgDefault: undefined })
      const after = tokens(out.request.messages)
      const saved = bytes(agent.messages) - bytes(out.request.messages)
      return [header ?? '(none: defaults)', `${saved} (${pct(saved, bytes(agent.messages))})`, `${before} → ${after}`, `${before - after} (${pct(before - after, before)})`]
    }),
  )

  console.log('\n## Each pass alone\n')
  const bigJson = JSON.stringify(issues(120), null, 2)
  const bigBlocks = `Found 120 issues.\n\n\`\`\`json\n${bigJson}\n\`\`\`\n`
  const bigTable = podTable(400)
  const bigProse = LOREM.repeat(Math.ceil(bigJson.length / LOREM.length))
  table(
    ['pass', 'input', 'K chars', 'median µs', 'M chars/s'],
    [
      row('json-compact', 'pretty JSON (changes)', bigJson, compactJson),
      row('json-compact', 'the same, compacted (no change, no JSON.parse)', compactJson(bigJson), compactJson),
      row('json-compact', 'prose (skipped at the first character)', bigProse, compactJson),
      row('json-tool-blocks', 'pretty JSON in a ```json block', bigBlocks, (t) => compactJsonBlocks(t).text),
      row('collapse-spaces', 'aligned table', bigTable, collapseSpaces),
      row('collapse-spaces', 'prose with no double space', bigProse, collapseSpaces),
    ],
  )
}

function row(pass: string, what: string, input: string, run: (text: string) => string): string[] {
  const times = timeEach(2_000, () => run(input))
  const m = median(times)
  const rate = m < 0.001 ? '(size-independent)' : (input.length / 1e6 / (m / 1e3)).toFixed(0)
  return [pass, what, (input.length / 1024).toFixed(1), us(m), rate]
}

// --- the conversations ------------------------------------------------------------------------

const TOOLS: ChatTool[] = ['list_issues', 'read_file', 'run_command', 'search_code', 'get_weather'].map((name) => ({
  type: 'function',
  function: {
    name,
    description: `The ${name.replace('_', ' ')} tool.`,
    parameters: { type: 'object', properties: { query: { type: 'string' } }, required: ['query'] },
  },
}))

function call(id: string, name: string, args: object): ChatMessage {
  return { role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name, arguments: JSON.stringify(args) } }] }
}

function result(id: string, content: string): ChatMessage {
  return { role: 'tool', tool_call_id: id, content }
}

function issues(count: number) {
  return Array.from({ length: count }, (_, i) => ({
    number: 4100 + i,
    title: ['Crash on empty config', 'Support proxies', 'Docs: typo in quickstart', 'Slow start-up on Windows'][i % 4],
    state: i % 3 === 0 ? 'closed' : 'open',
    labels: [{ name: 'bug', color: 'd73a4a' }, { name: 'p2', color: 'fbca04' }].slice(0, 1 + (i % 2)),
    user: { login: `user${i}`, id: 83_912_004 + i },
    comments: i * 3,
    created_at: `2024-0${1 + (i % 9)}-1${i % 10}T08:1${i % 10}:00Z`,
    draft: false,
  }))
}

function podTable(rows: number): string {
  const lines = ['NAME                                READY   STATUS             RESTARTS   AGE']
  for (let i = 0; i < rows; i++) {
    const name = `api-${(i * 7919).toString(16)}-deployment-${i}`
    const status = i % 5 === 0 ? 'CrashLoopBackOff' : 'Running'
    lines.push(`${name.padEnd(36)}${'1/1'.padEnd(8)}${status.padEnd(19)}${String(i % 4).padEnd(11)}${(i % 30) + 1}d`)
  }
  return lines.join('\n')
}

const LOREM =
  'The gateway reads each request, validates it against the contract, resolves the model, and plans the ' +
  'token budget before it starts a generation. Nothing is written before the last stage, so a refusal is ' +
  'always an ordinary error response. '

const SYSTEM = [
  'You are a coding agent working in a TypeScript repository. Use the tools to inspect the repository,',
  'run commands and read issues before you change anything. Keep answers short; cite file paths.',
  '',
  'Rules:',
  '- Never run destructive commands without asking.',
  '- Prefer small, reviewable changes; explain each one in a sentence.',
  '- When a tool fails, read its error and try once more with a corrected call; then ask.',
  '- Tests live beside the code (*.test.ts) and run with vitest.',
  '',
  LOREM,
  LOREM,
].join('\n')

const SOURCE = `import type { RequestHandler } from 'express'

/** Reads the body of a request as JSON, refusing anything larger than the limit. */
export function readJsonBody(limitBytes: number): RequestHandler {
  return async (req, res, next) => {
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of req) {
      size += chunk.length
      if (size > limitBytes) return next(new Error('too large'))
      chunks.push(chunk)
    }
    try {
      req.body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    } catch (error) {
      return next(error)
    }
    next()
  }
}
`

function agentConversation(): Conversation {
  const packageJson = JSON.stringify(
    {
      name: 'mortar',
      version: '0.1.0',
      private: true,
      scripts: { build: 'electron-vite build', test: 'vitest run', lint: 'eslint .' },
      dependencies: { express: '5.3.0', zod: '4.6.7', 'gpt-tokenizer': '4.0.0' },
      devDependencies: { typescript: '5.9.3', vitest: '4.1.12', 'fast-check': '4.10.2', eslint: '10.15.0' },
    },
    null,
    2,
  )
  const search =
    'Found 3 matches in 2 files.\n\n' +
    '```json\n' +
    JSON.stringify(
      [
        { path: 'src/gateway/http/read-json-body.ts', line: 7, text: '    const chunks: Buffer[] = []' },
        { path: 'src/gateway/http/read-json-body.ts', line: 14, text: "      req.body = JSON.parse(Buffer.concat(chunks).toString('utf8'))" },
        { path: 'src/gateway/routes/chat-completions.ts', line: 33, text: '    const body = await readJsonBody(req, deps.bodyLimitBytes)' },
      ],
      null,
      4,
    ) +
    '\n```\n\nShowing all results.'
  const weather = JSON.stringify({ city: 'Lisbon', temperature_c: 21.0, wind_kmh: 1.2e1, conditions: 'clear', updated: '2024-05-01T12:00:00Z' }, null, 2)
  const messages: ChatMessage[] = [
    { role: 'system', content: SYSTEM },
    { role: 'user', content: 'Which open issues mention a crash? And is the body limit applied before parsing?' },
    call('c1', 'list_issues', { state: 'open', per_page: 16 }),
    result('c1', JSON.stringify(issues(16), null, 2)),
    { role: 'assistant', content: 'Issues 4100, 4104 and 4108 are "Crash on empty config". Let me look at the body reader.' },
    call('c2', 'search_code', { query: 'readJsonBody' }),
    result('c2', search),
    call('c3', 'read_file', { path: 'src/gateway/http/read-json-body.ts' }),
    result('c3', SOURCE),
    { role: 'assistant', content: 'The limit is checked per chunk, before JSON.parse. Checking the pods too.' },
    call('c4', 'run_command', { command: 'kubectl get pods' }),
    result('c4', podTable(12)),
    call('c5', 'read_file', { path: 'package.json' }),
    result('c5', packageJson),
    { role: 'assistant', content: 'Two pods are crash-looping; the dependencies are pinned.' },
    { role: 'user', content: 'Thanks. Unrelated: what is the weather in Lisbon?' },
    call('c6', 'get_weather', { city: 'Lisbon' }),
    result('c6', weather),
    { role: 'assistant', content: 'Clear, 21 °C, light wind.' },
    { role: 'user', content: 'Summarize the crash issues in one paragraph for the changelog.' },
    { role: 'assistant', content: LOREM },
    { role: 'user', content: 'Shorter, please.' },
  ]
  return {
    kind: 'messages',
    model: 'Qwen/Qwen2.5-7B-Instruct',
    messages,
    stream: true,
    includeUsage: false,
    maxTokens: undefined,
    user: undefined,
    tools: TOOLS,
    toolChoice: undefined,
    parallelToolCalls: undefined,
    extraFields: {},
  }
}

/** The same shape and size with prose in place of every tool result. */
function proseConversation(agent: Conversation): Conversation {
  return {
    ...agent,
    messages: agent.messages.map((m) =>
      m.role === 'tool' ? { ...m, content: LOREM.repeat(Math.ceil((m.content ?? '').length / LOREM.length)) } : m,
    ),
  }
}

// --- measuring --------------------------------------------------------------------------------

function bytes(messages: readonly ChatMessage[]): number {
  return messages.reduce((sum, m) => sum + Buffer.byteLength(m.content ?? ''), 0)
}

function timeEach(runs: number, work: () => unknown): number[] {
  for (let i = 0; i < Math.min(runs, 2_000); i++) work() // warm up
  const times: number[] = []
  for (let i = 0; i < runs; i++) {
    const started = process.hrtime.bigint()
    work()
    times.push(Number(process.hrtime.bigint() - started) / 1e6)
  }
  return times
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

const us = (ms: number) => (ms * 1000).toFixed(1)
const pct = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)} %`

function table(header: string[], rows: string[][]): void {
  console.log(`| ${header.join(' | ')} |`)
  console.log(`|${header.map(() => '---').join('|')}|`)
  for (const cells of rows) console.log(`| ${cells.join(' | ')} |`)
}

main()
