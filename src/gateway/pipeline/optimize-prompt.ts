import { parseOptimizeHeader } from '../../shared/api/optimizer'
import { invalidRequest } from '../errors'

export const OPTIMIZER_RULESET = 1

/**
 * Stage: the prompt optimizer. Until its passes exist (the extensions milestone) it only checks
 * `X-Mortar-Optimize` — an unknown value is a 400, as the reference says — and reports `mode=off`.
 */
export function optimizePrompt(header: string | undefined): { report: string } {
  const parsed = parseOptimizeHeader(header)
  if (!parsed.ok) throw invalidRequest(parsed.message, 'X-Mortar-Optimize')
  return { report: `ruleset=${OPTIMIZER_RULESET}; mode=off` }
}
