import { useState } from 'react'
import { GENERATED_SESSION_PREFIX } from '../../../../shared/api/session'

/** How much of a generated session id a row shows: its prefix and its last characters. */
const TAIL = 6

/**
 * A session in a table row. A session Mortar made up (`sess_` and 24 hex digits) differs only at
 * random places, so it shows as `sess_…` and its last digits, enough to tell rows apart; a named
 * one shows as named. The whole id is in the tooltip and one click of the copy button away.
 */
export function SessionCell({ session }: { session: string | null }) {
  const [copied, setCopied] = useState(false)
  if (session === null) return <span data-testid="traffic-session">—</span>
  const generated = session.startsWith(GENERATED_SESSION_PREFIX) && session.length > GENERATED_SESSION_PREFIX.length + TAIL
  const shown = generated ? `${GENERATED_SESSION_PREFIX}…${session.slice(-TAIL)}` : session
  return (
    <span className="traffic__session" title={generated ? `${session} (made by Mortar: the request named no session)` : session} data-testid="traffic-session" data-session={session}>
      <span className="traffic__session-text">{shown}</span>
      <button
        type="button"
        className="traffic__copy"
        aria-label={`Copy the session id ${session}`}
        title={copied ? 'Copied' : 'Copy the session id'}
        onClick={(e) => {
          e.stopPropagation()
          navigator.clipboard.writeText(session).then(
            () => setCopied(true),
            () => setCopied(false),
          )
        }}
        data-testid="traffic-session-copy"
      >
        {copied ? '✓' : <CopyIcon />}
      </button>
    </span>
  )
}

/** Two overlapping sheets, drawn (a font may have no glyph for a copy symbol). */
function CopyIcon() {
  return (
    <svg width="11" height="11" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.6" aria-hidden>
      <rect x="5" y="5" width="9" height="9" rx="1.5" />
      <path d="M11 5V3.5A1.5 1.5 0 0 0 9.5 2h-6A1.5 1.5 0 0 0 2 3.5v6A1.5 1.5 0 0 0 3.5 11H5" />
    </svg>
  )
}
