import type { HeaderPairs } from '../../shared/api/traffic'
import { apiKeyHint } from '../auth/api-key'

/** Headers that carry credentials: recorded only as a hint of what was sent. */
const CREDENTIAL_HEADERS = new Set(['authorization', 'proxy-authorization', 'x-api-key', 'api-key'])
/** Mortar sets no cookies; a browser's cookies for localhost belong to other apps and are not recorded. */
const UNRECORDED_HEADERS = new Set(['cookie'])

const SCHEME = /^(\S+)\s+(\S+)\s*$/

/**
 * A secret reduced to what may be shown: a valid key's hint (as `mortar keys list` shows it), or,
 * for anything else, only its last four characters — an unknown token may be another service's key.
 */
export function secretHint(secret: string, isValidKey: boolean): string {
  if (isValidKey) return apiKeyHint(secret)
  return secret.length >= 16 ? `…${secret.slice(-4)} (${secret.length} characters)` : `(${secret.length} characters)`
}

export interface RedactedRequest {
  headers: HeaderPairs
  /** The secrets that were sent, to take out of the body too. */
  secrets: string[]
}

/**
 * Request headers as received (rawHeaders order, names lower-cased), credentials reduced to hints.
 * `checkedKey`: the key Mortar accepted, in whichever header it came (its hint is the key's own).
 */
export function redactHeaders(rawHeaders: readonly string[], checkedKey: string | undefined): RedactedRequest {
  const headers: HeaderPairs = []
  const secrets: string[] = []
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = (rawHeaders[i] as string).toLowerCase()
    const value = rawHeaders[i + 1] as string
    if (UNRECORDED_HEADERS.has(name)) headers.push([name, '(not recorded)'])
    else if (CREDENTIAL_HEADERS.has(name)) {
      const scheme = SCHEME.exec(value)
      const secret = scheme?.[2] ?? value.trim()
      if (secret !== '') secrets.push(secret)
      // Only the key Mortar checked and accepted is known to be a key; other secrets may be anyone's.
      const hint = secretHint(secret, checkedKey !== undefined && secret === checkedKey)
      headers.push([name, scheme !== null ? `${scheme[1]} ${hint}` : hint])
    } else headers.push([name, value])
  }
  return { headers, secrets }
}

/** A body with any secret that was also sent as a credential replaced by its hint (clients paste keys into prompts). */
export function redactBody(body: string, secrets: readonly string[]): string {
  let out = body
  for (const secret of secrets) if (secret.length >= 8 && out.includes(secret)) out = out.split(secret).join(secretHint(secret, false))
  return out
}
