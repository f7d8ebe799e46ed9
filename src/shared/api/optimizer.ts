import { z } from 'zod'
import { HeaderName } from './headers'

/**
 * A deployment's optimizer mode (`mortar serve --optimizer`, `config.json`, the desktop settings):
 * `shadow` measures only, and is the default; `on` applies the passes; `off` skips them.
 */
export const optimizerModeSchema = z.enum(['shadow', 'on', 'off'])
export type OptimizerMode = z.output<typeof optimizerModeSchema>
export const OPTIMIZER_MODES = optimizerModeSchema.options

/** An organization's default for requests that send no `X-Mortar-Optimize` (absent: `on`). */
export const organizationOptimizeSchema = optimizerModeSchema.exclude(['shadow'])
export type OrganizationOptimize = z.output<typeof organizationOptimizeSchema>

/** The passes a client may name in `X-Mortar-Optimize`, besides `on` and `off`, in the order they run. */
export const OPTIMIZER_PASSES = ['json-compact', 'json-tool-blocks', 'collapse-spaces'] as const
export type OptimizerPass = (typeof OPTIMIZER_PASSES)[number]

/** The lossless defaults: what `on` (or no header, unless the organization's default is `off`) runs. */
export const OPTIMIZER_DEFAULT_PASSES: readonly OptimizerPass[] = ['json-compact']

export type OptimizeHeaderValue =
  | { kind: 'default' }
  | { kind: 'off' }
  | { kind: 'on' }
  | { kind: 'passes'; passes: OptimizerPass[] }

export type OptimizeRequest = { ok: true; value: OptimizeHeaderValue } | { ok: false; message: string }

const isOptimizerPass = (name: string): name is OptimizerPass => OPTIMIZER_PASSES.some((pass) => pass === name)

/**
 * `X-Mortar-Optimize`: absent, `off`, `on`, or a comma-separated list of pass names (any case,
 * spaces around names allowed, duplicates ignored). Anything else — an empty value, an unknown
 * name, `on`/`off` inside a list, an empty list item — is refused.
 */
export function parseOptimizeHeader(raw: string | undefined): OptimizeRequest {
  if (raw === undefined) return { ok: true, value: { kind: 'default' } }
  const value = raw.trim().toLowerCase()
  if (value === 'off') return { ok: true, value: { kind: 'off' } }
  if (value === 'on') return { ok: true, value: { kind: 'on' } }
  const names = value.split(',').map((name) => name.trim())
  const passes = names.filter(isOptimizerPass)
  if (passes.length < names.length) {
    return {
      ok: false,
      message:
        `${HeaderName.optimize} has a value Mortar doesn't recognise: ${JSON.stringify(raw.slice(0, 100))}. ` +
        `Use off, on, or a comma-separated list of pass names from: ${OPTIMIZER_PASSES.join(', ')}.`,
    }
  }
  return { ok: true, value: { kind: 'passes', passes: [...new Set(passes)] } }
}
