import type { Prompt } from '../backends/generation-request'
import {
  OPTIMIZER_DEFAULT_PASSES,
  parseOptimizeHeader,
  type OptimizerMode,
  type OrganizationOptimize,
  type OptimizeHeaderValue,
  type OptimizerPass,
} from '../../shared/api/optimizer'
import { invalidRequest } from '../errors'
import { RULESET_VERSION, runRuleset } from '../optimizer/ruleset'
import { HeaderName } from '../../shared/api/headers'


export const OPTIMIZER_RULESET: number = RULESET_VERSION

export interface OptimizerSettings {
  deploymentMode: OptimizerMode
  /** The organization's default when a request sends no header; undefined means `on`. */
  orgDefault: OrganizationOptimize | undefined
}

/**
 * Stage: the prompt optimizer (docs/optimizer.md). Its passes rewrite conversations; a plain
 * prompt (completions) is never touched, and its report says `mode=off`.
 *
 * - An unrecognised `X-Mortar-Optimize` is a 400, in every deployment mode.
 * - Deployment `off`, header `off`, or no header under an organization default of `off`: nothing
 *   runs; the request is returned as is and the report is `ruleset=N; mode=off`.
 * - Otherwise the passes are the lossless defaults (`on`, or no header), or the defaults plus the
 *   named passes (a list of names). Deployment `shadow` runs them only to measure: the request is
 *   returned as is (the same object) and `saved` is what they would have removed. Deployment `on`
 *   returns a new request with the optimized messages; the input is never mutated.
 */
export function optimizePrompt<T extends Prompt>(
  request: T,
  header: string | undefined,
  settings: OptimizerSettings,
): { request: T; report: string } {
  const parsed = parseOptimizeHeader(header)
  if (!parsed.ok) throw invalidRequest(parsed.message, HeaderName.optimize)
  const passes = settings.deploymentMode === 'off' ? undefined : passesFor(parsed.value, settings.orgDefault)
  if (passes === undefined || request.kind !== 'messages') return { request, report: `ruleset=${OPTIMIZER_RULESET}; mode=off` }

  const started = process.hrtime.bigint()
  const run = runRuleset(request.messages, passes)
  const optimized =
    settings.deploymentMode === 'on' ? { ...request, messages: run.messages ?? request.messages.slice() } : request
  const elapsedUs = Number((process.hrtime.bigint() - started) / 1000n)

  const passList = run.counts.map(([name, count]) => `${name}/${count}`).join(',')
  return {
    request: optimized,
    report:
      `ruleset=${OPTIMIZER_RULESET}; mode=${settings.deploymentMode}; bytes=${run.bytes}; saved=${run.saved}; ` +
      `passes=${passList}; elapsed_us=${elapsedUs}`,
  }
}

/** The passes a request asks for, or undefined for none (optimization off for this request). */
export function passesFor(
  value: OptimizeHeaderValue,
  orgDefault: OrganizationOptimize | undefined,
): ReadonlySet<OptimizerPass> | undefined {
  switch (value.kind) {
    case 'off':
      return undefined
    case 'default':
      return orgDefault === 'off' ? undefined : new Set(OPTIMIZER_DEFAULT_PASSES)
    case 'on':
      return new Set(OPTIMIZER_DEFAULT_PASSES)
    case 'passes':
      // Named passes are opt-ins on top of the defaults; naming only `json-compact` is `on`.
      return new Set([...OPTIMIZER_DEFAULT_PASSES, ...value.passes])
  }
}
