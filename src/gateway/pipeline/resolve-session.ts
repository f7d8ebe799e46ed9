import { randomBytes } from 'node:crypto'
import { sanitizeSessionName } from '../../shared/api/headers'

/**
 * Stage: the session a request runs in: `X-Mortar-Session` (sanitized as the reference says),
 * else the body's `user`, else a session of its own. Sessions are per organization: the caller's
 * org is part of every lookup that uses them, so two orgs naming the same session never meet.
 */
export function resolveSession(header: string | undefined, user: string | undefined): string {
  return sanitizeSessionName(header) ?? sanitizeSessionName(user) ?? newSessionId()
}

function newSessionId(): string {
  return 'sess_' + randomBytes(12).toString('hex')
}
