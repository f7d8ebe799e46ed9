/**
 * What a backend watches to know its generation was stopped (the client left, someone stopped it,
 * the gateway shuts down). It plays AbortSignal's part without its cost: an AbortController and
 * EventTarget listeners per request were a measurable share of each request's time
 * (docs/benchmark.md), and a generation has at most a few listeners.
 */
export interface StopSignal {
  readonly aborted: boolean
  /** Call `listener` once when stopped (at once if already stopped); returns a function that unsubscribes. */
  onAbort(listener: () => void): () => void
}

export class StopController<Reason extends string> implements StopSignal {
  private listeners: Array<() => void> = []
  private stoppedFor: Reason | undefined

  get aborted(): boolean {
    return this.stoppedFor !== undefined
  }

  /** Why it was stopped, once it was. */
  get reason(): Reason | undefined {
    return this.stoppedFor
  }

  onAbort(listener: () => void): () => void {
    if (this.aborted) {
      listener()
      return noop
    }
    this.listeners.push(listener)
    return () => {
      const index = this.listeners.indexOf(listener)
      if (index !== -1) this.listeners.splice(index, 1)
    }
  }

  /** Stop, once: later calls change nothing. Listeners run now, in the order they subscribed. */
  abort(reason: Reason): void {
    if (this.aborted) return
    this.stoppedFor = reason
    const listeners = this.listeners
    this.listeners = []
    for (const listener of listeners) listener()
  }
}

const noop = () => undefined
