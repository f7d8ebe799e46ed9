/** What a caught value says, for a sentence in the UI: an Error's message, anything else as text. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error)
}
