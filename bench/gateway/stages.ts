// The request path's passes over the prompt, timed one by one in this process, for the sweep's
// prompts (prompts.ts): parse, validate, plan tokens (chat template + prompt counter), and the
// model server's body with its encoding for the socket — so a change to one pass shows in that
// pass, not in a whole-process number that the machine's other load moves.
//
//   npx tsx bench/gateway/stages.ts [--baseline DIR] [--count 700]
//
// --baseline DIR: a checkout of another commit (its src/ and bench/), timed the same way right
// after this one's, for a before/after. Medians of the last `count` − 200 requests; every request
// is a fresh body (its own parse, its own strings), as a client sends it.
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { printStagesBeforeAfter } from './lib'

type Prompts = typeof import('./prompts')
type Validate = typeof import('../../src/gateway/pipeline/validate-request')
type Endpoint = typeof import('../../src/gateway/endpoints/chat-completions/chat-completions-endpoint')
type Plan = typeof import('../../src/gateway/pipeline/plan-tokens')
type Form = typeof import('../../src/gateway/backends/upstream/forms/chat-completions-form')
type Registry = typeof import('../../src/gateway/tokens/tokenizer-registry')

const { values: opts } = parseArgs({ options: { baseline: { type: 'string' }, count: { type: 'string', default: '700' } } })
const COUNT = Number(opts.count)
const CELLS = [
  ['stable', 340],
  ['stable', 131072],
  ['growing', 32768],
  ['growing', 131072],
] as const

async function timeRoot(root: string): Promise<Record<string, Record<string, number>>> {
  const load = async <T>(path: string): Promise<T> => (await import(join(root, path))) as T
  const { bodyMaker } = await load<Prompts>('bench/gateway/prompts.ts')
  const { validateChatRequest } = await load<Validate>('src/gateway/pipeline/validate-request.ts')
  const { chatGenerationRequest } = await load<Endpoint>('src/gateway/endpoints/chat-completions/chat-completions-endpoint.ts')
  const { planTokens } = await load<Plan>('src/gateway/pipeline/plan-tokens.ts')
  const { chatCompletionsBody } = await load<Form>('src/gateway/backends/upstream/forms/chat-completions-form.ts')
  const { loadTokenizer } = await load<Registry>('src/gateway/tokens/tokenizer-registry.ts')
  const model = { tokenizer: loadTokenizer('qwen2.5'), contextWindow: 131072, defaultMaxTokens: 1024 }
  const out: Record<string, Record<string, number>> = {}
  for (const [shape, bytes] of CELLS) {
    const make = bodyMaker({ shape, bytes }, false)
    const times: Record<string, number[]> = { parse: [], validate: [], plan: [], 'body + encode': [] }
    const lap = (stage: string, since: number): number => {
      const now = performance.now()
      times[stage]!.push(now - since)
      return now
    }
    for (let n = 0; n < COUNT; n++) {
      const text = make(5_000_000 + n)
      const raw = Buffer.from(text)
      let at = performance.now()
      const value: unknown = JSON.parse(raw.toString('utf8'))
      at = lap('parse', at)
      // `source` is what the gateway reads the body as; a build that predates it ignores it.
      const request = { ...chatGenerationRequest(validateChatRequest(value, { stream: false })), source: { value, text, raw } }
      at = lap('validate', at)
      await planTokens(model, request)
      at = lap('plan', at)
      const body = chatCompletionsBody(request, { model: 'm', maxTokens: 16, askForUsage: false })
      const bytesOut = typeof body === 'string' ? Buffer.from(body) : body.bytes
      if (bytesOut.length === 0) throw new Error('empty body')
      lap('body + encode', at)
    }
    const median = (xs: number[]): number => {
      const kept = xs.slice(200).sort((a, b) => a - b)
      return Math.round((kept[Math.floor(kept.length / 2)] ?? NaN) * 1000)
    }
    out[`${shape} ${bytes < 1024 ? `${bytes} B` : `${bytes / 1024} KB`}`] = Object.fromEntries(Object.entries(times).map(([stage, xs]) => [stage, median(xs)]))
  }
  return out
}

await printStagesBeforeAfter(opts.baseline, ['parse', 'validate', 'plan', 'body + encode'], 'µs', timeRoot)
