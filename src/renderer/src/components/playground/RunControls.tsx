interface RunControlsProps {
  canSend: boolean
  running: boolean
  /** Why Send is disabled, when it is. */
  blockedBy: string | null
  onSend(): void
  onStop(): void
  onDisconnect(): void
  /** Puts the shown request back into the form; absent before the first request. */
  onEditAndResend?: (() => void) | undefined
  /** Appends the shown reply to its conversation and readies the next turn; absent when there is none yet. */
  onContinue?: (() => void) | undefined
}

/** The bar above the inspector: it stays in view, and its buttons stay in their places whatever the outcome. */
export function RunControls({ canSend, running, blockedBy, onSend, onStop, onDisconnect, onEditAndResend, onContinue }: RunControlsProps) {
  return (
    <div className="run-controls" data-testid="run-controls">
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
      <span className="spacer" />
      <button
        type="button"
        className="button button--small"
        disabled={onContinue === undefined || running}
        onClick={onContinue}
        title="Append the reply to the conversation as an assistant turn (tool calls included) and add the next turn"
        data-testid="continue-button"
      >
        Append reply and continue
      </button>
      <button
        type="button"
        className="button button--small"
        disabled={onEditAndResend === undefined}
        onClick={onEditAndResend}
        title="Put this request back into the form"
        data-testid="edit-resend"
      >
        Edit and resend
      </button>
    </div>
  )
}
