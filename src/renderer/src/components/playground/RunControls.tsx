interface RunControlsProps {
  canSend: boolean
  running: boolean
  /** Why Send is disabled, when it is. */
  blockedBy: string | null
  onSend(): void
  onStop(): void
  onDisconnect(): void
}

export function RunControls({ canSend, running, blockedBy, onSend, onStop, onDisconnect }: RunControlsProps) {
  return (
    <div className="run-controls">
      <button
        type="button"
        className="button button--primary"
        disabled={!canSend}
        onClick={onSend}
        title={blockedBy ?? 'Send (Ctrl+Enter)'}
        data-testid="send-button"
      >
        Send
      </button>
      <button
        type="button"
        className="button button--danger"
        disabled={!running}
        onClick={onStop}
        title="Stop the generation: POST /v1/generations/{id}/stop (Esc)"
        data-testid="stop-button"
      >
        Stop
      </button>
      <button
        type="button"
        className="button"
        disabled={!running}
        onClick={onDisconnect}
        title="Hang up, as a client that goes away would"
        data-testid="disconnect-button"
      >
        Disconnect
      </button>
      <span className="muted run-controls__hint">{blockedBy ?? 'Ctrl+Enter sends · Esc stops'}</span>
    </div>
  )
}
