import type { ReactNode } from 'react'
import type { StreamConnection } from '../../lib/follow-event-stream'

interface TrafficToolbarProps {
  connection: StreamConnection
  /** The filters, after the live state. */
  children: ReactNode
  /** "n shown · m running". */
  count: string
  /** Said after the count: what is kept (the capture store), or why not. */
  status?: ReactNode
  /** Buttons before Clear (exports). */
  actions?: ReactNode
  clearTitle: string
  onClear(): void
}

export function connectionText(connection: StreamConnection): string {
  switch (connection.kind) {
    case 'connecting':
      return 'Connecting…'
    case 'live':
      return 'Live'
    case 'reconnecting':
      return `Reconnecting in ${Math.round(connection.inMs / 1000)} s (${connection.reason})`
    case 'refused':
      return `Not connected: ${connection.reason}`
  }
}

/** Traffic's bar: whether the list is live, its filters, how many rows it shows, and Clear. */
export function TrafficToolbar({ connection, children, count, status, actions, clearTitle, onClear }: TrafficToolbarProps) {
  return (
    <div className="toolbar" data-testid="traffic-toolbar">
      <span className={`live live--${connection.kind}`} data-testid="traffic-connection" data-state={connection.kind}>
        {connectionText(connection)}
      </span>
      {children}
      <span className="spacer" />
      <span className="muted" data-testid="traffic-count">
        {count}
      </span>
      {status}
      {actions}
      <button type="button" className="button button--small" onClick={onClear} title={clearTitle} data-testid="traffic-clear">
        Clear
      </button>
    </div>
  )
}
