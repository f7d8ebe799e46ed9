import { StopController, type StopSignal } from './stop-signal'

/**
 * The generations running right now, by completion ID. Stopping is scoped to the organization that
 * started a generation: for any other org, a live ID looks exactly like an unknown one.
 */
export type StopReason = 'stopped' | 'client_disconnected' | 'shutdown'

export interface LiveGeneration {
  readonly id: string
  readonly org: string
  readonly signal: StopSignal
  /** Why it was aborted, once it was. */
  stopReason(): StopReason | undefined
  /** Remove it from the registry; call once its response is over. */
  release(): void
}

export class GenerationRegistry {
  private readonly live = new Map<string, { org: string; controller: StopController<StopReason> }>()
  private idleWaiters: Array<() => void> = []
  private readonly registerListeners = new Listeners<[id: string, org: string]>()
  private readonly releaseListeners = new Listeners<[id: string]>()

  get size(): number {
    return this.live.size
  }

  register(id: string, org: string): LiveGeneration {
    const controller = new StopController<StopReason>()
    this.live.set(id, { org, controller })
    this.registerListeners.tell(id, org)
    return {
      id,
      org,
      signal: controller,
      stopReason: () => controller.reason,
      release: () => {
        if (this.live.get(id)?.controller !== controller) return
        this.live.delete(id)
        this.releaseListeners.tell(id)
        if (this.live.size === 0) this.notifyIdle()
      },
    }
  }

  /**
   * Tell `listener` of each generation as it is registered: the moment a request is live, before
   * its reply exists. Returns a function that unsubscribes.
   */
  onRegister(listener: (id: string, org: string) => void): () => void {
    return this.registerListeners.add(listener)
  }

  /** Tell `listener` of each generation as it is released (its response is over). Returns a function that unsubscribes. */
  onRelease(listener: (id: string) => void): () => void {
    return this.releaseListeners.add(listener)
  }

  /** Abort a generation of `org`'s. False when none with that ID is running for that org. */
  stop(id: string, org: string, reason: StopReason = 'stopped'): boolean {
    const entry = this.live.get(id)
    if (entry === undefined || entry.org !== org || entry.controller.aborted) return false
    entry.controller.abort(reason)
    return true
  }

  /** Abort one generation whatever its org: the gateway's own decision (client gone). */
  abort(id: string, reason: StopReason): void {
    const entry = this.live.get(id)
    if (entry !== undefined && !entry.controller.aborted) entry.controller.abort(reason)
  }

  stopAll(reason: StopReason): number {
    let count = 0
    for (const { controller } of this.live.values()) {
      if (!controller.aborted) {
        controller.abort(reason)
        count++
      }
    }
    return count
  }

  /** Resolves when no generation is running. */
  whenIdle(): Promise<void> {
    if (this.live.size === 0) return Promise.resolve()
    return new Promise((resolve) => this.idleWaiters.push(resolve))
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
  }
}

/** Listeners told in the order they subscribed; one may unsubscribe itself while being told. */
class Listeners<Args extends unknown[]> {
  private list: Array<(...args: Args) => void> = []

  add(listener: (...args: Args) => void): () => void {
    this.list.push(listener)
    return () => {
      const index = this.list.indexOf(listener)
      if (index !== -1) this.list.splice(index, 1)
    }
  }

  tell(...args: Args): void {
    if (this.list.length === 0) return
    // A copy, so that unsubscribing while being told skips no one.
    for (const listener of this.list.slice()) listener(...args)
  }
}
