/**
 * Narrowing for values whose type nothing promises (parsed JSON, caught errors), so code checks
 * what it reads instead of casting it.
 */

/** A plain object (not null, not an array), its keys readable. */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A whole number above zero (a token count, a limit). */
export function isPositiveWholeNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value > 0
}

/** What a caught value says: an Error's message, anything else as text. */
export function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
