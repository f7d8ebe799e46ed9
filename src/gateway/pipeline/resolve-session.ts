import { randomHex } from '../random-id'
import { sanitizeSessionName } from '../../shared/api/headers'
import { GENERATED_SESSION_PREFIX } from '../../shared/api/session'

export interface Session {
  name: string
  /** Named by the client (header or `user`), rather than started for this one request. */
  named: boolean
}

/**
 * Stage: the session a request runs in: `X-Mortar-Session` (sanitized by `sanitizeSessionName`),
 * else the body's `user`, else a session of its own. Sessions are per organization: the caller's
 * org is part of every lookup that uses them, so two orgs naming the same session never meet.
 */
export function resolveSession(header: string | undefined, user: string | undefined): Session {
  const named = sanitizeSessionName(header) ?? sanitizeSessionName(user)
  return named === undefined ? { name: newSessionId(), named: false } : { name: named, named: true }
}

/** The replica-affinity key of a named session: scoped by org, so orgs never share placement. */
export function affinityKeyOf(org: string, session: Session): string | undefined {
  return session.named ? `${org}\u0000${session.name}` : undefined
}

function newSessionId(): string {
  return GENERATED_SESSION_PREFIX + randomHex(12)
}
