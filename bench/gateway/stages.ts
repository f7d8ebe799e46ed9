// The request path's passes over the prompt, timed one by one in one process, for the sweep's
// prompts (prompts.ts), as the gateway runs them: read (the body from a stream, decoded and
// parsed, a remembered history reused), accept (validation and the generation request), plan
// (chat template + prompt counter), and the model server's body with its encoding — so a change to
// one pass shows in that pass, not in a whole-process number that the machine's other load moves.
//
//   npx tsx bench/gateway/stages.ts [--baseline DIR] [--count 700] [--rounds 3] [--apis chat,messages,responses]
//
// Each checkout's stages are bundled with esbuild first, as the gateway's build bundles them: run
// through tsx instead, every module is CommonJS and every imported constant a getter call (the
// JSON scanners read their character codes that way), which made a scan look several times
// costlier than it is. --baseline DIR: a checkout of another commit, bundled and timed the same
// way in the same rounds, alternating processes with this one, for a before/after. Per round,
// medians of the last `count` − 200 requests (each a fresh body, as a client sends it); printed,
// the median round.
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { ROOT } from './lib'

const { values: opts } = parseArgs({
  options: {
    baseline: { type: 'string' },
    count: { type: 'string', default: '700' },
    rounds: { type: 'string', default: '3' },
    apis: { type: 'string', default: 'chat,messages,responses' },
  },
})
const STAGES = ['read', 'accept', 'plan', 'body'] as const
const OUT = join(ROOT, 'node_modules', '.cache', 'mortar-stages')

/** What the bundle runs: the cells of each API, the form each is sent in as the sweep's fake server answers (it speaks Responses, not Messages). */
function timerSource(root: string, count: number, apis: readonly string[]): string {
  const at = (path: string) => JSON.stringify(join(root, path))
  const remembers = existsSync(join(root, 'src/gateway/http/parsed-parts.ts'))
  return `
import { Readable } from 'node:stream'
import { bodyMaker } from ${at('bench/gateway/prompts.ts')}
import { readJsonBody } from ${at('src/gateway/http/read-json-body.ts')}
import { chatCompletionsEndpoint } from ${at('src/gateway/endpoints/chat-completions/chat-completions-endpoint.ts')}
import { messagesEndpoint } from ${at('src/gateway/endpoints/messages/messages-endpoint.ts')}
import { responsesEndpoint } from ${at('src/gateway/endpoints/responses/responses-endpoint.ts')}
import { planTokens } from ${at('src/gateway/pipeline/plan-tokens.ts')}
import { loadTokenizer } from ${at('src/gateway/tokens/tokenizer-registry.ts')}
import { DIALECT_RULES } from ${at('src/shared/api/dialect.ts')}
${remembers ? `import { ParsedParts } from ${at('src/gateway/http/parsed-parts.ts')}\nconst known = { parts: new ParsedParts(), scope: 'org' }` : 'const known = undefined'}
const model = { tokenizer: loadTokenizer('qwen2.5'), contextWindow: 131072, defaultMaxTokens: 1024 }
const apis = { chat: [chatCompletionsEndpoint, 0], messages: [messagesEndpoint, 1], responses: [responsesEndpoint, 0] }
const cells = [['stable', 340], ['stable', 32768], ['stable', 131072], ['growing', 4096], ['growing', 32768], ['growing', 131072]]
const out = {}
for (const api of ${JSON.stringify(apis)}) {
  const [endpoint, formIndex] = apis[api]
  for (const [shape, bytes] of cells) {
    if (api !== 'chat' && bytes < 32768) continue
    const make = bodyMaker({ shape, bytes }, false, api)
    const times = { read: [], accept: [], plan: [], body: [] }
    for (let n = 0; n < ${count}; n++) {
      const raw = Buffer.from(make(5_000_000 + n))
      const req = Object.assign(Readable.from([raw]), { headers: {} })
      const t0 = performance.now()
      const source = await readJsonBody(req, 8 << 20, known)
      const t1 = performance.now()
      const admitted = endpoint.accept(source.value, { dialect: DIALECT_RULES.mortar })
      const request = { ...admitted.request, source }
      const t2 = performance.now()
      await planTokens(model, request)
      const t3 = performance.now()
      const body = request.forms[formIndex].body(request, { model: 'm', maxTokens: 16, askForUsage: false })
      const bytesOut = typeof body === 'string' ? Buffer.from(body) : body.bytes
      if (bytesOut.length === 0) throw new Error('empty body')
      const t4 = performance.now()
      times.read.push(t1 - t0); times.accept.push(t2 - t1); times.plan.push(t3 - t2); times.body.push(t4 - t3)
    }
    const median = (xs) => { const kept = xs.slice(200).sort((a, b) => a - b); return Math.round(kept[Math.floor(kept.length / 2)] * 1000) }
    out[api + ' ' + shape + ' ' + (bytes < 1024 ? bytes + ' B' : bytes / 1024 + ' KB')] = Object.fromEntries(Object.entries(times).map(([stage, xs]) => [stage, median(xs)]))
  }
}
process.stdout.write(JSON.stringify(out))
`
}

type Timings = Record<string, Record<string, number>>

async function bundle(label: string, root: string): Promise<string> {
  mkdirSync(OUT, { recursive: true })
  const outfile = join(OUT, `${label}.mjs`)
  // Bundled into node_modules/.cache, so that what stays outside the bundle resolves from here.
  await build({
    stdin: { contents: timerSource(root, Number(opts.count), opts.apis.split(',')), resolveDir: ROOT, loader: 'ts' },
    bundle: true,
    platform: 'node',
    format: 'esm',
    outfile,
    logLevel: 'error',
  })
  return outfile
}

const roots: [string, string][] = opts.baseline === undefined ? [['this checkout', ROOT]] : [['baseline', opts.baseline], ['this checkout', ROOT]]
const bundles = await Promise.all(roots.map(([label, root], i) => bundle(`stages-${i}-${label.replace(/\W+/g, '-')}`, root)))
const rounds: Timings[][] = roots.map(() => [])
for (let round = 0; round < Number(opts.rounds); round++) {
  for (const [i, file] of bundles.entries()) rounds[i]!.push(JSON.parse(execFileSync(process.execPath, [file], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 })) as Timings)
}
const medianRound = (runs: Timings[], cell: string, stage: string): number => {
  const values = runs.map((run) => run[cell]?.[stage] ?? NaN).sort((a, b) => a - b)
  return values[Math.floor(values.length / 2)] ?? NaN
}
console.log(`| prompt | ${STAGES.map((s) => `${s} (µs)`).join(' | ')} | all four |`)
console.log(`|---|${STAGES.map(() => '---:').join('|')}|---:|`)
for (const cell of Object.keys(rounds[0]![0] ?? {})) {
  const cellOf = (stage: string) => rounds.map((runs) => medianRound(runs, cell, stage)).join(' → ')
  const total = rounds.map((runs) => STAGES.reduce((sum, stage) => sum + medianRound(runs, cell, stage), 0)).join(' → ')
  console.log(`| ${cell} | ${STAGES.map(cellOf).join(' | ')} | ${total} |`)
}
if (roots.length > 1) console.log(`\nEach cell: baseline → this checkout; the median of ${opts.rounds} rounds, alternating.`)
