// What the tray shows, kept apart from electron so it can be tested.

export interface TrayState {
  status: 'starting' | 'running' | 'stopping' | 'failed'
  url: string
  /** Generations running now. */
  live: number
}

export interface TrayActions {
  open(): void
  quit(): void
}

export function trayLabel(state: TrayState): string {
  switch (state.status) {
    case 'starting':
      return 'Mortar: starting…'
    case 'stopping':
      return 'Mortar: stopping live streams…'
    case 'failed':
      return 'Mortar: gateway not running'
    case 'running':
      return `Mortar: ${state.url}/v1 · ${state.live === 0 ? 'idle' : `${state.live} live`}`
  }
}
