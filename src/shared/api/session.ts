/**
 * A request that names no session (no `X-Mortar-Session`, no `user`) runs in a session of its own,
 * which the gateway names this prefix and 24 hex digits. The UI says such a session was made up.
 */
export const GENERATED_SESSION_PREFIX = 'sess_'
