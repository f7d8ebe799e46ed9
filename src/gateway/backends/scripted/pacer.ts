import { setImmediate as nextTurn } from 'node:timers/promises'
import type { StopSignal } from '../../generation/stop-signal'

/**
 * Paces the scripted model at a fixed token rate. Deadlines are computed from the start, so timer
 * lateness does not accumulate into drift. At rate 0 (as fast as possible) it still yields to the
 * event loop now and then, so that a stop request or a disconnect is seen mid-reply.
 */
export class Pacer {
  private readonly startedAt = performance.now()
  private emitted = 0

  constructor(
    private readonly tokensPerSecond: number,
    private readonly signal: StopSignal,
  ) {}

  /** Wait until `tokens` more may go out. Resolves false if the generation was aborted meanwhile. */
  async admit(tokens: number): Promise<boolean> {
    const before = this.emitted
    this.emitted += tokens
    if (this.signal.aborted) return false
    if (this.tokensPerSecond <= 0) {
      if (Math.floor(before / 64) !== Math.floor(this.emitted / 64)) await nextTurn()
      return !this.signal.aborted
    }
    // The first token goes out at once; each later one at its slot.
    const due = this.startedAt + (before * 1000) / this.tokensPerSecond
    const wait = due - performance.now()
    if (wait > 0) await sleepUnlessStopped(wait, this.signal)
    return !this.signal.aborted
  }
}

/** Wait `ms`, or less when the signal stops the generation meanwhile. */
function sleepUnlessStopped(ms: number, signal: StopSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      unsubscribe()
      resolve()
    }, ms)
    const unsubscribe = signal.onAbort(() => {
      clearTimeout(timer)
      resolve()
    })
  })
}
