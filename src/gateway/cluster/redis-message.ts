import type { z } from 'zod'

/**
 * A value read from Redis (a key's value or a pub/sub message), parsed against its schema.
 * Undefined when it is not JSON or not of that shape: another version of Mortar, or anyone else
 * with access to the same Redis, may have written it, and nothing read from there is trusted.
 */
export function parseRedisValue<T>(schema: z.ZodType<T>, text: string): T | undefined {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return undefined
  }
  const result = schema.safeParse(parsed)
  return result.success ? result.data : undefined
}
