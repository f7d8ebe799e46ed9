import { searchable } from '../capture/redact-credentials'
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
 *
 * `secrets` (the request's credentials, read only when a name is given) never become part of a
 * name: a client that names its session with its own key (say, as `user`) would have it echoed in
 * a header, kept in Traffic and shown in telemetry. Each is replaced by `key-` and its last four
 * characters before the name is sanitized, so that a cut cannot keep part of it either.
 */
export function resolveSession(header: string | undefined, user: string | undefined, secrets: () => readonly string[] = () => []): Session {
  if (header === undefined && user === undefined) return { name: newSessionId(), named: false }
  const sent = searchable(secrets())
  const hide = (raw: string | undefined) => (raw === undefined ? undefined : sent.reduce((text, secret) => text.split(secret).join(`key-${secret.slice(-4)}`), raw))
  const named = sanitizeSessionName(hide(header)) ?? sanitizeSessionName(hide(user))
  return named === undefined ? { name: newSessionId(), named: false } : { name: named, named: true }
}

/** The replica-affinity key of a named session: scoped by org, so orgs never share placement. */
export function affinityKeyOf(org: string, session: Session): string | undefined {
  return session.named ? `${org}\u0000${session.name}` : undefined
}

function newSessionId(): string {
  return GENERATED_SESSION_PREFIX + randomHex(12)
}
