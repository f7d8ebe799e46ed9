import type { z } from 'zod'

/** The first problem zod found, and where: the one thing a refusal tells its reader. */
export interface FirstIssue {
  /** The place as a client writes it (`messages[2].content`); null at the top level. */
  param: string | null
  /** The place as a dotted path (`models.0.deployment`), for files and argument lists; '' at the top level. */
  path: string
  /** zod's words for what is wrong. */
  detail: string
}

/**
 * The first issue of a failed parse. `depth` keeps only that many leading path keys (a query
 * parameter's name, not the index of a bad item in its list); `within` prefers the first issue
 * below that top-level key, and names places relative to it.
 */
export function firstIssue(error: z.ZodError, options: { depth?: number; within?: PropertyKey } = {}): FirstIssue {
  const { within } = options
  const issue = (within === undefined ? undefined : error.issues.find((i) => i.path[0] === within)) ?? error.issues[0]
  let path: readonly PropertyKey[] = issue?.path ?? []
  if (within !== undefined) path = path.slice(1)
  if (options.depth !== undefined) path = path.slice(0, options.depth)
  return { param: formatParamPath(path), path: path.map(String).join('.'), detail: issue?.message ?? 'is invalid' }
}

/** The API's sentence for a refused field: ``Invalid `param`: detail.``; `whole` names the input when the issue is at its top level. */
export function invalidFieldMessage(issue: FirstIssue, whole?: string): string {
  const name = issue.param ?? whole
  return name === undefined ? issue.detail : `Invalid \`${name}\`: ${issue.detail}.`
}

/** A path as a client writes it: `messages[2].content`; null for the top level. */
export function formatParamPath(path: ReadonlyArray<PropertyKey>): string | null {
  let out = ''
  for (const key of path) {
    if (typeof key === 'number') out += `[${key}]`
    else out += out === '' ? String(key) : `.${String(key)}`
  }
  return out === '' ? null : out
}
