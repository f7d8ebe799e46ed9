/**
 * Parsers for the two report headers a chat completion carries, for people to read them:
 * `X-Mortar-Optimizer` (docs/optimizer.md) and `X-Mortar-Tool-Selector` (docs/api-decisions.md).
 * Both are `key=value` fields separated by `;`. The parsers are lenient: a field they don't know
 * is kept in `other`, a malformed one in `unparsed`, so a newer gateway's report still shows.
 */

export interface OptimizerPassCount {
  name: string
  /** Message contents (or fenced blocks) the pass changed; 0 means it ran with nothing to do. */
  count: number
}

export interface OptimizerReport {
  ruleset: number | null
  /** `on` applied, `shadow` measured only, `off` nothing ran. */
  mode: string | null
  /** UTF-8 bytes of the message contents before optimization. */
  bytes: number | null
  /** Bytes removed (or, in shadow mode, that would have been). */
  saved: number | null
  /** saved / bytes × 100, when both are known and bytes > 0. */
  savedPercent: number | null
  passes: OptimizerPassCount[]
  elapsedMicros: number | null
  other: Record<string, string>
  unparsed: string[]
}

export interface ToolSelectorReport {
  mode: string | null
  toolsBefore: number | null
  toolsAfter: number | null
  tokensBefore: number | null
  tokensAfter: number | null
  saved: number | null
  other: Record<string, string>
  unparsed: string[]
}

interface Fields {
  values: Map<string, string>
  unparsed: string[]
}

function splitFields(report: string): Fields {
  const values = new Map<string, string>()
  const unparsed: string[] = []
  for (const part of report.split(';')) {
    const field = part.trim()
    if (field === '') continue
    const eq = field.indexOf('=')
    if (eq <= 0) {
      unparsed.push(field)
      continue
    }
    values.set(field.slice(0, eq).trim().toLowerCase(), field.slice(eq + 1).trim())
  }
  return { values, unparsed }
}

function wholeNumber(value: string | undefined): number | null {
  if (value === undefined || !/^\d+$/.test(value)) return null
  return Number(value)
}

/** `A->B` as two whole numbers. */
function transition(value: string | undefined): [number | null, number | null] {
  if (value === undefined) return [null, null]
  const match = /^(\d+)\s*->\s*(\d+)$/.exec(value)
  if (match === null) return [null, null]
  return [Number(match[1]), Number(match[2])]
}

function leftovers(values: Map<string, string>, known: readonly string[]): Record<string, string> {
  const other: Record<string, string> = {}
  for (const [key, value] of values) if (!known.includes(key)) other[key] = value
  return other
}

const OPTIMIZER_FIELDS = ['ruleset', 'mode', 'bytes', 'saved', 'passes', 'elapsed_us'] as const

/** `ruleset=2; mode=on; bytes=10001; saved=2212; passes=json-compact/3; elapsed_us=49` */
export function parseOptimizerReport(report: string): OptimizerReport {
  const { values, unparsed } = splitFields(report)
  const passes: OptimizerPassCount[] = []
  const passList = values.get('passes')
  if (passList !== undefined && passList !== '') {
    for (const item of passList.split(',')) {
      const entry = item.trim()
      const match = /^([^/\s]+)\/(\d+)$/.exec(entry)
      if (match?.[1] !== undefined) passes.push({ name: match[1], count: Number(match[2]) })
      else if (entry !== '') unparsed.push(`passes: ${entry}`)
    }
  }
  const bytes = wholeNumber(values.get('bytes'))
  const saved = wholeNumber(values.get('saved'))
  return {
    ruleset: wholeNumber(values.get('ruleset')),
    mode: values.get('mode') ?? null,
    bytes,
    saved,
    savedPercent: bytes !== null && saved !== null && bytes > 0 ? (saved / bytes) * 100 : null,
    passes,
    elapsedMicros: wholeNumber(values.get('elapsed_us')),
    other: leftovers(values, OPTIMIZER_FIELDS),
    unparsed,
  }
}

const TOOL_SELECTOR_FIELDS = ['mode', 'tools', 'tokens', 'saved'] as const

/** `mode=named; tools=12->1; tokens=1840->160; saved=1680` */
export function parseToolSelectorReport(report: string): ToolSelectorReport {
  const { values, unparsed } = splitFields(report)
  const [toolsBefore, toolsAfter] = transition(values.get('tools'))
  const [tokensBefore, tokensAfter] = transition(values.get('tokens'))
  return {
    mode: values.get('mode') ?? null,
    toolsBefore,
    toolsAfter,
    tokensBefore,
    tokensAfter,
    saved: wholeNumber(values.get('saved')),
    other: leftovers(values, TOOL_SELECTOR_FIELDS),
    unparsed,
  }
}
