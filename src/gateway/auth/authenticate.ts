import type { IncomingMessage } from 'node:http'
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
 * Stage: who is calling. `Authorization: Bearer mk_live_…`, looked up by hash; a 401 GatewayError
 * otherwise. Error messages never repeat the key, and nothing here logs it.
 */
export function authenticator(keys: KeyStore): (req: IncomingMessage) => KeyCheck {
  return (req) => {
    const header = req.headers.authorization
    const match = header === undefined ? null : BEARER.exec(header)
    if (match === null || match[1] === undefined) {
      return { ok: false, error: unauthorized('missing_api_key', 'Missing API key. Send it as `Authorization: Bearer mk_live_…`.'), key: undefined }
    }
    const result = keys.authenticate(match[1])
    if (result.ok) return result
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
