/**
 * Every HTTP header of the Mortar dialect, once. Who sends it, whether a page may read it
 * (`Access-Control-Expose-Headers`) and whether it is part of the in-flight dedupe fingerprint
 * (because it changes the prompt the model sees) are properties of the header, so the CORS list,
 * the fingerprint and the names code reads and writes are all derived from this table.
 */
interface HeaderSpec {
  /** As the dialect spells it (and as responses write it). */
  readonly name: string
  /** `client`: read from requests; `gateway`: written on responses; `both`: read and echoed. */
  readonly sentBy: 'client' | 'gateway' | 'both'
  /** Listed in `Access-Control-Expose-Headers`, so a page can read it from a response. */
  readonly exposed: boolean
  /** Part of what makes two deduplicated requests the same (docs/api-decisions.md). */
  readonly fingerprint: boolean
}

export const HEADERS = {
  requestId: { name: 'X-Mortar-Request-Id', sentBy: 'gateway', exposed: true, fingerprint: false },
  deployment: { name: 'X-Mortar-Deployment', sentBy: 'gateway', exposed: true, fingerprint: false },
  model: { name: 'X-Mortar-Model', sentBy: 'gateway', exposed: true, fingerprint: false },
  upstream: { name: 'X-Mortar-Upstream', sentBy: 'gateway', exposed: true, fingerprint: false },
  session: { name: 'X-Mortar-Session', sentBy: 'both', exposed: true, fingerprint: true },
  optimize: { name: 'X-Mortar-Optimize', sentBy: 'client', exposed: false, fingerprint: true },
  optimizer: { name: 'X-Mortar-Optimizer', sentBy: 'gateway', exposed: true, fingerprint: false },
  toolSelect: { name: 'X-Mortar-Tool-Select', sentBy: 'client', exposed: false, fingerprint: true },
  toolSelector: { name: 'X-Mortar-Tool-Selector', sentBy: 'gateway', exposed: true, fingerprint: false },
  dedupe: { name: 'X-Mortar-Dedupe', sentBy: 'both', exposed: true, fingerprint: false },
  /** Which dialect answered: `mortar` or `openai` (the key's, else the gateway's). */
  dialect: { name: 'X-Mortar-Dialect', sentBy: 'gateway', exposed: true, fingerprint: false },
  idempotencyKey: { name: 'Idempotency-Key', sentBy: 'client', exposed: false, fingerprint: false },
  clientRequestId: { name: 'X-Request-Id', sentBy: 'both', exposed: true, fingerprint: false },
  shouldRetry: { name: 'x-should-retry', sentBy: 'gateway', exposed: false, fingerprint: false },
} as const satisfies Record<string, HeaderSpec>

type HeaderKey = keyof typeof HEADERS

/** Header names as the dialect spells them: for writing responses and building requests. */
export const HeaderName = mapHeaders((spec) => spec.name) as { readonly [K in HeaderKey]: (typeof HEADERS)[K]['name'] }

/** Header names lower-cased as Node delivers them in `req.headers` (and as `Headers.get` accepts). */
export const MortarHeader = mapHeaders((spec) => spec.name.toLowerCase()) as {
  readonly [K in HeaderKey]: Lowercase<(typeof HEADERS)[K]['name']>
}

/** The response headers a page may read: every Mortar report, and the request IDs. */
export const EXPOSED_HEADERS: readonly string[] = specs().filter((spec) => spec.exposed).map((spec) => spec.name)

/** The request headers, lower-cased, that a dedupe fingerprint covers besides the body, in a fixed order. */
export const FINGERPRINT_HEADERS: readonly string[] = specs()
  .filter((spec) => spec.fingerprint)
  .map((spec) => spec.name.toLowerCase())

function specs(): HeaderSpec[] {
  return Object.values(HEADERS)
}

function mapHeaders(pick: (spec: HeaderSpec) => string): Record<HeaderKey, string> {
  return Object.fromEntries(Object.entries(HEADERS).map(([key, spec]) => [key, pick(spec)])) as Record<HeaderKey, string>
}

export const MAX_SESSION_LENGTH = 128

/**
 * A session name as the chat completions API allows it: up to 128 letters, digits, `-`, `_`, `.`
 * or `:`; any other character is dropped. Returns undefined when nothing usable is left.
 */
export function sanitizeSessionName(raw: string | undefined): string | undefined {
  if (raw === undefined) return undefined
  const kept = raw.replace(/[^A-Za-z0-9\-_.:]/g, '').slice(0, MAX_SESSION_LENGTH)
  return kept === '' ? undefined : kept
}
