import type { FakeBehavior } from './behavior'
import type { ServerFamilyName } from './server-families'

/** What the fake server's own process is told on its command line (cli.ts), or a benchmark in-process. */
export interface ProcessFakeOptions {
  family: ServerFamilyName
  deltas: number
  intervalMs: number
  /** piece i's content: this, with `{i}` replaced by i */
  content: string
  model: string | null
  contextWindow: number | null
  honourMaxTokens: boolean
  /** Answer POST /v1/responses too (FakeBehavior.speaksResponses); false when absent */
  speaksResponses?: boolean
}

/** The behavior of a fake server run as a process of its own (the benchmark's and the soak's). */
export function processFakeBehavior(options: ProcessFakeOptions): Partial<FakeBehavior> {
  return {
    family: options.family,
    deltas: Array.from({ length: options.deltas }, (_, i) => options.content.replaceAll('{i}', String(i))),
    deltaDelayMs: options.intervalMs,
    usage: { prompt_tokens: 16, completion_tokens: options.deltas, total_tokens: 16 + options.deltas },
    model: options.model,
    contextWindow: options.contextWindow,
    honourMaxTokens: options.honourMaxTokens,
    speaksResponses: options.speaksResponses ?? false,
  }
}
