/** Header names of the Mortar dialect, lower-cased as Node delivers them. */
export const MortarHeader = {
  requestId: 'x-mortar-request-id',
  deployment: 'x-mortar-deployment',
  model: 'x-mortar-model',
  upstream: 'x-mortar-upstream',
  session: 'x-mortar-session',
  optimize: 'x-mortar-optimize',
  optimizer: 'x-mortar-optimizer',
  toolSelect: 'x-mortar-tool-select',
  toolSelector: 'x-mortar-tool-selector',
  dedupe: 'x-mortar-dedupe',
  /** Which dialect answered: `mortar` or `openai` (the key's, else the gateway's). */
  dialect: 'x-mortar-dialect',
  idempotencyKey: 'idempotency-key',
  clientRequestId: 'x-request-id',
  shouldRetry: 'x-should-retry',
} as const

export const MAX_SESSION_LENGTH = 128

/**
 * A session name as the reference allows it: up to 128 letters, digits, `-`, `_`, `.` or `:`;
 * any other character is dropped. Returns undefined when nothing usable is left.
 */
export function sanitizeSessionName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const kept = raw.replace(/[^A-Za-z0-9\-_.:]/g, '').slice(0, MAX_SESSION_LENGTH)
  return kept === '' ? undefined : kept
}
