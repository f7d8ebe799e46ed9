import { errnoCode } from '../gateway/errno-code'
import { errorText } from '../shared/narrow'
import { UsageError } from './cli-io'

/** `--help` or `-h` anywhere before a `--` asks for the command's help instead of running it. */
export function asksForHelp(argv: readonly string[]): boolean {
  for (const arg of argv) {
    if (arg === '--') return false
    if (arg === '--help' || arg === '-h') return true
  }
  return false
}

/** The options a usage text names (`--port`, `--upstream-model`…), for suggestions. */
function optionsIn(usage: string): string[] {
  return [...new Set(usage.match(/--[a-z][a-z-]*/g) ?? [])]
}

/** Levenshtein distance, small strings only. */
function distance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length] ?? 0
}

/** The usage's option closest to a mistyped one, if any is close (or starts with it). */
export function closestOption(option: string, usage: string): string | undefined {
  const name = option.split('=')[0] ?? option
  let best: { option: string; score: number } | undefined
  for (const candidate of optionsIn(usage)) {
    const score = candidate.startsWith(name) && name.length > 3 ? 0 : distance(name, candidate)
    if (score <= 2 && (best === undefined || score < best.score)) best = { option: candidate, score }
  }
  return best?.option
}

/**
 * Node's parseArgs errors (`ERR_PARSE_ARGS_*`) say how to pass a positional starting with `-`, which
 * is not what a user who mistyped an option needs. This says what was wrong in a line, with the
 * option meant if one is close; other errors pass through unchanged.
 */
export function explainParseError(error: unknown, usage: string): unknown {
  const code = errnoCode(error)
  if (code === undefined || !code.startsWith('ERR_PARSE_ARGS')) return error
  const message = errorText(error)
  const unknown = /Unknown option '([^']+)'/.exec(message)?.[1]
  if (unknown !== undefined) {
    const meant = closestOption(unknown, usage)
    return new UsageError(`unknown option ${unknown}.${meant !== undefined ? ` Did you mean ${meant}?` : ''}`)
  }
  const missing = /Option '(-\S+?)(?:,\s*(-\S+))?(?: <value>)?' argument missing/.exec(message)
  if (missing !== undefined && missing !== null) return new UsageError(`${missing[2] ?? missing[1]} needs a value.`)
  const unexpected = /Unexpected argument '([^']+)'/.exec(message)?.[1]
  if (unexpected !== undefined) return new UsageError(`unexpected argument ${unexpected}.`)
  return new UsageError(message)
}
