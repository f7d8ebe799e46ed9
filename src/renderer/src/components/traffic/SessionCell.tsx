import { useState } from 'react'
import { GENERATED_SESSION_PREFIX } from '../../../../shared/api/session'
import { growingColumn, type GridColumn } from '../../lib/grid-columns'

/** How many of a session id's last characters stay in sight when its column is too narrow. */
const TAIL = 6

/**
 * The Session column: its least width holds a whole id Mortar made up (`sess_` and 24 hex
 * digits, 29 characters of the 11 px monospace font) with the copy button hidden, so such an id
 * reads whole in a 1280 px window.
 */
export const sessionColumn = (fr: number): GridColumn => growingColumn('Session', 198, fr)

/**
 * A session in a table row, whole. When its column is narrower than the id, the id gives way in
 * the middle and keeps its last characters: a made-up id differs only at random places, so its
 * tail is what tells rows apart. The whole id is also in the tooltip and one click of the copy
 * button away (shown on the row under the pointer or selected).
 */
export function SessionCell({ session }: { session: string | null }) {
  const [copied, setCopied] = useState(false)
  if (session === null) return <span data-testid="traffic-session">—</span>
  const generated = session.startsWith(GENERATED_SESSION_PREFIX)
  const split = session.length > TAIL
  return (
    <span className="traffic__session" title={generated ? `${session} (made by Mortar: the request named no session)` : session} data-testid="traffic-session" data-session={session}>
      <span className="traffic__session-text" data-testid="traffic-session-text">
        {split ? (
          <>
            <span className="traffic__session-head">{session.slice(0, -TAIL)}</span>
            <span className="traffic__session-tail" data-testid="traffic-session-tail">
              {session.slice(-TAIL)}
            </span>
          </>
        ) : (
          session
        )}
      </span>
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
