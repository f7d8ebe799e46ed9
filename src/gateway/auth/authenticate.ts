import type { Request, RequestHandler } from 'express'
import { GatewayError } from '../errors'
import type { KeyStore, Principal } from './key-store'

const unauthorized = (code: 'missing_api_key' | 'invalid_api_key' | 'expired_api_key' | 'revoked_api_key', message: string) =>
  new GatewayError({ status: 401, type: 'authentication_error', code, message, retryable: false })

const MESSAGES = {
  invalid: 'Incorrect API key provided. Create one with `mortar keys create`.',
  expired: 'This API key has expired. Rotate it with `mortar keys rotate` or create a new one.',
  revoked: 'This API key has been revoked.',
} as const

const principals = new WeakMap<Request, Principal>()

/**
 * Stage: who is calling. `Authorization: Bearer mk_live_…`, looked up by hash. Error messages never
 * repeat the key, and nothing here logs it.
 */
export function authenticate(keys: KeyStore): RequestHandler {
  return (req, _res, next) => {
    const header = req.headers.authorization
    const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header)
    if (match === null || match[1] === undefined) {
      return next(
        unauthorized('missing_api_key', 'Missing API key. Send it as `Authorization: Bearer mk_live_…`.'),
      )
    }
    const result = keys.authenticate(match[1])
    if (!result.ok) return next(unauthorized(`${result.reason}_api_key`, MESSAGES[result.reason]))
    principals.set(req, result.principal)
    next()
  }
}

/** The caller, for handlers behind `authenticate`. */
export function principalOf(req: Request): Principal {
  const principal = principals.get(req)
  if (principal === undefined) throw new Error('principalOf() called on a route without authenticate()')
  return principal
}
