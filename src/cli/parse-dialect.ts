import { DIALECTS, dialectSchema, type Dialect } from '../shared/api/dialect'
import { UsageError } from './cli-io'

/** `--dialect` of `mortar serve` and `mortar keys create`, by the one schema of the dialects. */
export function parseDialect(value: string): Dialect {
  const parsed = dialectSchema.safeParse(value)
  if (parsed.success) return parsed.data
  throw new UsageError(`--dialect takes ${DIALECTS.join(' or ')}; got ${JSON.stringify(value)}.`)
}
