// The request path's passes over the prompt, timed one by one in one process, for the sweep's
// prompts (prompts.ts), as the gateway runs them: read (the body from a stream, decoded and
// parsed, a remembered history reused), accept (validation and the generation request), plan
// (chat template + prompt counter), and the model server's body with its encoding — so a change to
// one pass shows in that pass, not in a whole-process number that the machine's other load moves.
//
//   npx tsx bench/gateway/stages.ts [--baseline DIR] [--count 700] [--rounds 3] [--apis chat,messages,responses] [--cells LIST] [--cold-mb 0]
//
// Each checkout's stages are bundled with esbuild first, as the gateway's build bundles them: run
// through tsx instead, every module is CommonJS and every imported constant a getter call (the
// JSON scanners read their character codes that way), which made a scan look several times
// costlier than it is. --baseline DIR: a checkout of another commit, bundled the same way and timed
// in the same processes as this one, request by request in turn, for a before/after: on a shared
// machine whose speed drifts by tens of percent within seconds, two processes run one after the
// other differed that much with the same code. Per round (one process), medians of the last
// `count` − 200 requests of each cell (each a fresh body, as a client sends it); printed, the
// median round.
// --cells LIST: only these cells, by name, comma-separated ("messages growing 128 KB"): one cell run
// long, as a gateway that has filled its caches runs it.
// --cold-mb N: N MiB touched (a byte per 64, a cache line) before each request, outside its timing,
// so that the stages run with little of their code and data in the processor's caches, as a
// stream's request or an agent's turn after a pause does (4 leaves nothing in this machine's 1 MiB
// L2; reply-parser.ts has the figures for the model server's reply).
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { build } from 'esbuild'
import { ROOT } from './lib'

const { values: opts } = parseArgs({
  options: {
    baseline: { type: 'string' },
    count: { type: 'string', default: '700' },
    rounds: { type: 'string', default: '3' },
    apis: { type: 'string', default: 'chat,messages,responses' },
    cells: { type: 'string' },
    'cold-mb': { type: 'string', default: '0' },
  },
})
const STAGES = ['read', 'accept', 'plan', 'body'] as const
const OUT = join(ROOT, 'node_modules', '.cache', 'mortar-stages')

/** What the bundle runs: the cells of each API, the form each is sent in as the sweep's fake server answers (it speaks Responses, not Messages). */
function timerSource(root: string, apis: readonly string[]): string {
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
const sizes = [['stable', 340], ['stable', 32768], ['stable', 131072], ['growing', 4096], ['growing', 32768], ['growing', 131072]]
/** The cells timed: [name, api, shape, bytes]. */
export const cells = ${JSON.stringify(apis)}.flatMap((api) => sizes.filter(([, bytes]) => api === 'chat' || bytes >= 32768).map(([shape, bytes]) => [api + ' ' + shape + ' ' + (bytes < 1024 ? bytes + ' B' : bytes / 1024 + ' KB'), api, shape, bytes]))
/** One cell's requests, one at a time: request n's four stages, µs each. */
export function runner(api, shape, bytes) {
  const [endpoint, formIndex] = apis[api]
  const make = bodyMaker({ shape, bytes }, false, api)
  return async (n) => {
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
    return { read: (t1 - t0) * 1000, accept: (t2 - t1) * 1000, plan: (t3 - t2) * 1000, body: (t4 - t3) * 1000 }
  }
}
`
}

type Timings = Record<string, Record<string, number>>

/**
 * A process that times every cell with each bundle given, request by request in turn (which one
 * goes first alternates), so that both meet the machine in the same state: on a shared machine
 * whose speed drifts by tens of percent from one second to the next, two processes timed one after
 * the other differ by that much with the same code. Prints, per bundle, the cells' median stages
 * (the first 200 requests of a cell left out).
 */
function driverSource(bundles: readonly string[], count: number, coldMb: number, cells: readonly string[] | undefined): string {
  return `
const thrash = new Uint8Array(${coldMb} * 1024 * 1024)
const bundles = await Promise.all(${JSON.stringify(bundles)}.map((file) => import(file)))
const median = (xs) => { const kept = xs.slice(200).sort((a, b) => a - b); return Math.round(kept[Math.floor(kept.length / 2)]) }
const out = bundles.map(() => ({}))
const wanted = ${JSON.stringify(cells ?? null)}
for (const [name, api, shape, bytes] of bundles[0].cells.filter(([name]) => wanted === null || wanted.includes(name))) {
  const runners = bundles.map((bundle) => bundle.runner(api, shape, bytes))
  const times = bundles.map(() => ({ read: [], accept: [], plan: [], body: [] }))
  for (let n = 0; n < ${count}; n++) {
    for (let k = 0; k < runners.length; k++) {
      const i = (n + k) % runners.length
      for (let at = 0; at < thrash.length; at += 64) thrash[at]++
      const stages = await runners[i](n)
      for (const [stage, us] of Object.entries(stages)) times[i][stage].push(us)
    }
  }
  times.forEach((cell, i) => { out[i][name] = Object.fromEntries(Object.entries(cell).map(([stage, xs]) => [stage, median(xs)])) })
}
process.stdout.write(JSON.stringify(out))
`
}

async function bundle(label: string, root: string): Promise<string> {
  mkdirSync(OUT, { recursive: true })
  const outfile = join(OUT, `${label}.mjs`)
  // Bundled into node_modules/.cache, so that what stays outside the bundle resolves from here.
  await build({
    stdin: { contents: timerSource(root, opts.apis.split(',')), resolveDir: ROOT, loader: 'ts' },
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
const driver = join(OUT, 'stages-driver.mjs')
writeFileSync(driver, driverSource(bundles.map((file) => pathToFileURL(file).href), Number(opts.count), Number(opts['cold-mb']), opts.cells?.split(',').map((name) => name.trim())))
const rounds: Timings[][] = roots.map(() => [])
for (let round = 0; round < Number(opts.rounds); round++) {
  const timings = JSON.parse(execFileSync(process.execPath, [driver], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 20 })) as Timings[]
  timings.forEach((timing, i) => rounds[i]!.push(timing))
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
if (roots.length > 1) console.log(`\nEach cell: baseline → this checkout; the median of ${opts.rounds} rounds, each a process timing both, request by request in turn.`)
