/** The passes a client may name in `X-Mortar-Optimize`, besides `on` and `off`. */
export const OPTIMIZER_PASSES = ['json-compact', 'json-tool-blocks', 'collapse-spaces'] as const
export type OptimizerPass = (typeof OPTIMIZER_PASSES)[number]

export type OptimizeRequest =
  | { ok: true; value: { kind: 'default' } | { kind: 'off' } | { kind: 'on' } | { kind: 'passes'; passes: OptimizerPass[] } }
  | { ok: false; message: string }

/** `off`, `on`, or a comma-separated list of pass names; anything else is refused. */
export function parseOptimizeHeader(raw: string | undefined): OptimizeRequest {
  if (raw === undefined) return { ok: true, value: { kind: 'default' } }
  const value = raw.trim().toLowerCase()
  if (value === 'off') return { ok: true, value: { kind: 'off' } }
  if (value === 'on') return { ok: true, value: { kind: 'on' } }
  const names = value.split(',').map((name) => name.trim())
  const unknown = names.filter((name) => !(OPTIMIZER_PASSES as readonly string[]).includes(name))
  if (unknown.length > 0 || names.length === 0) {
    return {
      ok: false,
      message:
        `X-Mortar-Optimize has a value Mortar doesn't recognise: ${JSON.stringify(raw.slice(0, 100))}. ` +
        `Use off, on, or pass names from: ${OPTIMIZER_PASSES.join(', ')}.`,
    }
  }
  return { ok: true, value: { kind: 'passes', passes: [...new Set(names)] as OptimizerPass[] } }
}
