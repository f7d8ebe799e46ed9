import type { IncomingHttpHeaders, IncomingMessage } from 'node:http'
import { GatewayError } from '../errors'
import type { KeyStore, Principal, RefusedKey } from './key-store'

const unauthorized = (code: 'missing_api_key' | 'invalid_api_key' | 'expired_api_key' | 'revoked_api_key', message: string) =>
  new GatewayError(code, message)

const MESSAGES = {
  invalid: 'Incorrect API key provided. Create one with `mortar keys create`.',
  expired: 'This API key has expired. Rotate it with `mortar keys rotate` or create a new one.',
  revoked: 'This API key has been revoked.',
} as const

/** The 401 for a key that does not (or no longer) work: at the door, or when a stream it opened ends. */
export function keyRefused(reason: 'invalid' | 'expired' | 'revoked'): GatewayError {
  return unauthorized(`${reason}_api_key`, MESSAGES[reason])
}

const BEARER = /^Bearer\s+(\S+)\s*$/i

const principals = new WeakMap<IncomingMessage, Principal>()

/** Who is calling, or why not: the 401 to send and, for an expired or revoked key, which key it was. */
export type KeyCheck = { ok: true; principal: Principal } | { ok: false; error: GatewayError; key: RefusedKey | undefined }

/**
 * The key a request presents: `Authorization: Bearer …` (OpenAI's clients) or `x-api-key`
 * (Anthropic's, which send only that). Continue's adapters send both, with the same key: that is
 * the key. Two different keys are a conflict — which one the client meant cannot be known, so
 * neither is guessed. An Authorization that is not a bearer token counts as absent.
 */
export function presentedKey(headers: IncomingHttpHeaders): { key: string | undefined; conflict: boolean } {
  const bearer = headers.authorization === undefined ? undefined : BEARER.exec(headers.authorization)?.[1]
  const header = headers['x-api-key']
  const apiKey = typeof header === 'string' && header.trim() !== '' ? header.trim() : undefined
  if (bearer !== undefined && apiKey !== undefined && bearer !== apiKey) return { key: undefined, conflict: true }
  return { key: bearer ?? apiKey, conflict: false }
}

/**
 * Stage: who is calling. The presented key (`presentedKey`), looked up by hash; a 401
 * GatewayError otherwise. Error messages never repeat the key, and nothing here logs it.
 */
export function authenticator(keys: KeyStore): (req: IncomingMessage) => KeyCheck {
  return (req) => {
    const { key, conflict } = presentedKey(req.headers)
    if (conflict) {
      const message = 'Authorization and x-api-key carry two different keys. Send one key, in either header (or the same key in both).'
      return { ok: false, error: unauthorized('invalid_api_key', message), key: undefined }
    }
    if (key === undefined) {
      return { ok: false, error: unauthorized('missing_api_key', 'Missing API key. Send it as `Authorization: Bearer mk_live_…` or as `x-api-key: mk_live_…`.'), key: undefined }
    }
    const result = keys.authenticate(key)
    if (result.ok) return result
    if (result.reason === 'unavailable') return { ok: false, error: new GatewayError('keys_unavailable', result.message), key: undefined }
    return { ok: false, error: keyRefused(result.reason), key: result.reason === 'invalid' ? undefined : result.key }
  }
}

/** For routes mounted on Express: keep who is calling with the request (see `principalOf`). */
export function rememberPrincipal(req: IncomingMessage, principal: Principal): void {
  principals.set(req, principal)
}

/** The caller, for Express routes behind the authenticating middleware. */
export function principalOf(req: IncomingMessage): Principal {
  const principal = principals.get(req)
  if (principal === undefined) throw new Error('principalOf() called on a route without authentication')
  return principal
}
