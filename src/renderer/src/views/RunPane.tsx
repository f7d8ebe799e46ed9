import { useCallback, type ReactNode } from 'react'
import { hasReply, type AssembledReply } from '../logic/inspector/assemble-reply'
import { isRunning } from '../logic/inspector/exchange'
import { RunControls } from '../components/playground/RunControls'
import { Inspector } from '../components/inspector/Inspector'
import { useExchange } from '../hooks/use-exchange'
import { useTicking } from '../hooks/use-now'
import { useShortcuts } from '../hooks/use-shortcuts'
import type { ExchangeRun } from '../lib/exchange-run'

interface RunPaneProps {
  run: ExchangeRun
  /** The history list, shown between the controls and the inspector. */
  history: ReactNode
  canSend: boolean
  blockedBy: string | null
  onSend(): void
  onEditAndResend(run: ExchangeRun): void
  onContinue(run: ExchangeRun, reply: AssembledReply): void
}

/** The controls and the inspector of the selected request. */
export function RunPane({ run, history, canSend, blockedBy, onSend, onEditAndResend, onContinue }: RunPaneProps) {
  const snapshot = useExchange(run)
  const running = isRunning(snapshot.outcome)
  const clock = useCallback(() => run.elapsed(), [run])
  const elapsed = useTicking(running, clock)
  const stop = useCallback(() => void run.stop(), [run])
  useShortcuts({ send: canSend ? onSend : undefined, stop: running ? stop : undefined })
  return (
    <>
      <RunControls
        canSend={canSend}
        running={running}
        blockedBy={blockedBy}
        onSend={onSend}
        onStop={stop}
        onDisconnect={() => run.disconnect()}
        onEditAndResend={() => onEditAndResend(run)}
        onContinue={hasReply(snapshot.reply) ? () => onContinue(run, snapshot.reply) : undefined}
      />
      {history}
      <Inspector key={run.id} snapshot={snapshot} elapsed={elapsed} />
    </>
  )
}

/** Before the first request: the controls, and what the inspector will show. */
export function EmptyRunPane({ canSend, blockedBy, onSend }: Omit<RunPaneProps, 'run' | 'onEditAndResend' | 'onContinue' | 'history'>) {
  useShortcuts({ send: canSend ? onSend : undefined })
  return (
    <>
      <RunControls canSend={canSend} running={false} blockedBy={blockedBy} onSend={onSend} onStop={() => {}} onDisconnect={() => {}} />
      <section className="inspector inspector--empty" data-testid="inspector-empty">
        <h3>Stream inspector</h3>
        <p>
          Send a request to watch its frames arrive: each with its arrival time and Δt, the parsed reply beside them, the
          optimizer and tool-selector reports, and exports as curl, JSONL and SDK code.
        </p>
      </section>
    </>
  )
}
