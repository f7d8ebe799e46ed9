import type { z } from 'zod'
import { firstIssue } from '../../shared/api/first-issue'
import { errorText } from '../../shared/narrow'

/**
 * Parse a file Mortar reads (config.json, keys.json) against its schema. Errors say which file,
 * which field and what is wrong, and are thrown as the caller's error type so the CLI can report
 * them without a stack trace.
 */
export function parseJsonFile<S extends z.ZodType>(
  path: string,
  text: string,
  schema: S,
  what: string,
  makeError: (message: string) => Error,
): z.output<S> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw makeError(`The ${what} ${path} is not valid JSON (${errorText(error)}).`)
  }
  const parsed = schema.safeParse(json)
  if (!parsed.success) {
    const issue = firstIssue(parsed.error)
    throw makeError(`The ${what} ${path} is not valid: ${issue.path || '(top level)'}: ${issue.detail}.`)
  }
  return parsed.data
}
