import type { IncomingMessage, ServerResponse } from 'node:http'
import type {
  CaptureLimits,
  CaptureMode,
  CaptureStatus,
  Exchange,
  ExchangeFilter,
  ExchangeList,
  ExchangeListQuery,
  ExchangeSummary,
  TrafficEvent,
} from '../../shared/api/traffic'
import type { ClusterFanout } from '../cluster/cluster-event-relay'
import { TRAFFIC_BASE } from '../../shared/api/traffic'
import { SubscriptionCaps } from '../sse/subscription-caps'
import { buildExchange, buildStoredExchange, knownBytesOf, pathOf } from './build-exchange'
import { ExchangeFollower } from './exchange-follower'
import { matchesFilter, matchesText, searchPattern, summaryOf, visibleTo, type Scope } from './exchange-filter'
import { ExchangeRecorder, type RecorderHooks } from './exchange-recorder'
import type { ExchangeStore } from './exchange-store'
import { TRAFFIC_LIVE_LIMITS, TrafficBus } from './traffic-bus'

/**
 * Paths under /v1 that are not captured: the traffic API itself (capturing it would record every
 * look at the traffic, and its live stream would announce itself) and the telemetry stream, which
 * never ends. Both only observe; every request that uses the model or the keys is captured.
 */
const UNCAPTURED = [TRAFFIC_BASE, '/v1/telemetry']

export function isCapturedPath(url: string | undefined): boolean {
  const path = pathOf(url)
  if (path !== '/v1' && !path.startsWith('/v1/')) return false
  return !UNCAPTURED.some((prefix) => path === prefix || path.startsWith(prefix + '/'))
}

/** A mode's store and limits: none for `off`. */
export interface OpenedStore {
  mode: CaptureMode
  limits: CaptureLimits
  store: ExchangeStore | undefined
}

/** Opens the store of a mode (disk may fail: no driver, a database from a newer Mortar). */
export type StoreOpener = (mode: CaptureMode) => Promise<OpenedStore>

/**
 * What the cluster offers capture (docs/cluster.md): the other instances' exchanges. Every method
 * answers without waiting on Redis for more than a bounded time, and degrades to "nothing there".
 */
export interface SharedExchanges {
  /** One of this instance's exchanges ended (and was stored). */
  ended(summary: ExchangeSummary): void
  /** A page of the cluster's ended exchanges (no `q`); undefined when the cluster cannot answer now. */
  list(scope: Scope, query: ExchangeListQuery): Promise<ExchangeList | undefined>
  /** A record held by another instance; undefined as for an unknown ID. */
  get(scope: Scope, id: string): Promise<Exchange | undefined>
  /** The scope's exchanges were cleared here: forget them everywhere. */
  cleared(scope: Scope): Promise<void>
}

/** A cursor of a local store's pages (the cluster's pages have cursors of their own). */
const LOCAL_CURSOR = /^\d{1,15}$/

/** A running exchange that can be followed, or an ended one, whole. */
export type FollowTarget = { kind: 'running'; recorder: ExchangeRecorder } | { kind: 'ended'; exchange: Exchange }

/**
 * Traffic capture: starts a recorder on every captured request (from the front door, which all
 * requests pass), keeps the ended exchanges in the store, and tells live subscribers. With mode
 * `off` there is no store and `begin` does nothing. The mode can change while the gateway runs
 * (`setMode`): exchanges already running finish into whatever store is open when they end.
 */
export class TrafficCapture {
  readonly live = new TrafficBus()
  /** GET /v1/traffic/exchanges/{id}/live subscriptions, capped like the live stream. */
  readonly follows = new SubscriptionCaps('/v1/traffic/exchanges/{id}/live', TRAFFIC_LIVE_LIMITS)
  private readonly running = new Map<string, ExchangeRecorder>()
  private readonly hooks: RecorderHooks
  private current: OpenedStore
  /** Mode changes, one after another. */
  private switching: Promise<unknown> = Promise.resolve()
  /** Recorders with an `exchange.updated` due at the next turn of the event loop. */
  private readonly updates = new Set<ExchangeRecorder>()
  private updateTimer: NodeJS.Immediate | undefined
  /** This instance's name in a cluster: every exchange it records is marked with it. */
  private instance: string | undefined
  private shared: SharedExchanges | undefined

  constructor(
    initial: OpenedStore,
    private readonly open: StoreOpener = () => Promise.reject(new Error('this capture cannot change its mode')),
  ) {
    this.current = initial
    this.hooks = {
      maxExchangeBytes: () => this.current.limits.max_exchange_bytes,
      started: (recorder) => {
        if (!this.live.wanted) return
        const exchange = this.snapshot(recorder)
        this.live.publish({ type: 'exchange.started', exchange: summaryOf(exchange) }, exchange.org)
      },
      changed: (recorder) => {
        if (!this.live.wanted) return
        // Coalesced: the facts of one turn (model decided, headers out, first token) are one event.
        this.updates.add(recorder)
        this.updateTimer ??= setImmediate(() => this.publishUpdates())
      },
      ended: (recorder) => this.ended(recorder),
    }
  }

  /**
   * Share exchanges with the other instances of a cluster: from now on each one recorded here
   * names this instance, and live events go to (and come from) the other instances.
   */
  joinCluster(instance: string, live: ClusterFanout<TrafficEvent>, shared?: SharedExchanges): void {
    this.instance = instance
    this.live.joinCluster(live)
    this.shared = shared
  }

  get mode(): CaptureMode {
    return this.current.mode
  }

  get limits(): CaptureLimits {
    return this.current.limits
  }

  get enabled(): boolean {
    return this.current.store !== undefined
  }

  /** Start recording this request, if it is one that is captured. */
  begin(req: IncomingMessage, res: ServerResponse): void {
    if (this.current.store === undefined || !isCapturedPath(req.url)) return
    const recorder = new ExchangeRecorder(req, res, this.hooks)
    this.running.set(recorder.id, recorder)
  }

  /**
   * Newest first. The first page (no cursor) starts with the running exchanges the filters match
   * (`outcome: in_progress`, at most `limit` of them, newest first), then the stored ones.
   */
  list(scope: Scope, query: ExchangeListQuery): ExchangeList {
    const stored = this.current.store?.list(scope, query) ?? { object: 'list', data: [], next_cursor: null }
    if (query.cursor !== undefined || this.running.size === 0) return stored
    const running = this.runningMatching(scope, query, query.limit)
    return running.length === 0 ? stored : { ...stored, data: [...running, ...stored.data] }
  }

  /**
   * The list across the cluster (GET /v1/traffic/exchanges): the first page starts with this
   * instance's running exchanges, then every instance's ended ones from the cluster's index. A
   * full-text search (`q`) needs the bodies, which stay with each instance: it lists this
   * instance's exchanges, as does a local cursor, and so does everything while the cluster
   * cannot answer (a cluster cursor then ends the list).
   */
  async listEverywhere(scope: Scope, query: ExchangeListQuery): Promise<ExchangeList> {
    const { shared } = this
    const { cursor } = query
    if (shared === undefined || (query.q !== undefined && query.q !== '') || (cursor !== undefined && LOCAL_CURSOR.test(cursor))) {
      return this.list(scope, query)
    }
    const page = await shared.list(scope, query)
    if (page === undefined) return cursor === undefined ? this.list(scope, query) : { object: 'list', data: [], next_cursor: null }
    if (cursor !== undefined || this.running.size === 0) return page
    const running = this.runningMatching(scope, query, query.limit)
    return running.length === 0 ? page : { ...page, data: [...running, ...page.data] }
  }

  /** One exchange whole, from whichever instance holds it; undefined as for an unknown ID. */
  async getEverywhere(scope: Scope, id: string): Promise<Exchange | undefined> {
    return this.get(scope, id) ?? (await this.shared?.get(scope, id))
  }

  /** Clears the scope's exchanges here, and (in a cluster) on every instance and in the index. */
  async clearEverywhere(scope: Scope): Promise<number> {
    const deleted = this.clear(scope)
    await this.shared?.cleared(scope)
    return deleted
  }

  /** One exchange whole — a running one as it stands now. */
  get(scope: Scope, id: string): Exchange | undefined {
    const target = this.find(scope, id)
    if (target === undefined) return undefined
    return target.kind === 'ended' ? target.exchange : this.snapshot(target.recorder)
  }

  /** An exchange the scope may see, running or ended. */
  find(scope: Scope, id: string): FollowTarget | undefined {
    const recorder = this.running.get(id)
    if (recorder !== undefined) return visibleTo(scope, orgOf(recorder)) ? { kind: 'running', recorder } : undefined
    const exchange = this.current.store?.get(scope, id)
    return exchange === undefined ? undefined : { kind: 'ended', exchange }
  }

  /**
   * Follow a running exchange on `res` (an open event stream): its snapshot now, frames as they
   * come, the final record when it ends. Returns the function that stops following.
   */
  follow(recorder: ExchangeRecorder, res: ServerResponse): () => void {
    const follower = new ExchangeFollower(recorder, res, () => this.snapshot(recorder))
    follower.start()
    return () => follower.stop()
  }

  select(scope: Scope, filter: ExchangeFilter, ids: readonly string[] | undefined): Exchange[] {
    return this.current.store?.select(scope, filter, ids) ?? []
  }

  clear(scope: Scope): number {
    const deleted = this.current.store?.clear(scope) ?? 0
    // Only this instance's store was cleared: only its own subscribers are told.
    this.live.deliver({ type: 'exchanges.cleared' }, scope.org)
    return deleted
  }

  status(): CaptureStatus {
    const stats = this.current.store?.stats() ?? { exchanges: 0, bytes: 0, evicted: 0 }
    return { mode: this.current.mode, limits: this.current.limits, ...stats }
  }

  /**
   * Change the mode while the gateway runs. The new mode's store is opened first (if that fails,
   * nothing changes and the error is thrown), then the old one is closed: a disk store writes
   * what is waiting. Exchanges are not carried from one store to the other; the database stays
   * on disk for the next time `disk` is chosen. Changes run one after another.
   */
  setMode(mode: CaptureMode): Promise<CaptureStatus> {
    const change = this.switching.then(async () => {
      if (mode === this.current.mode) return this.status()
      const opened = await this.open(mode)
      const previous = this.current
      this.current = opened
      previous.store?.close()
      return this.status()
    })
    this.switching = change.catch(() => undefined)
    return change
  }

  /** Exchanges whose response has not ended yet (leak checks). */
  get runningCount(): number {
    return this.running.size
  }

  close(): void {
    this.live.closeAll()
    this.current.store?.close()
  }

  private snapshot(recorder: ExchangeRecorder): Exchange {
    return this.named(buildExchange(recorder, this.current.limits.max_exchange_bytes))
  }

  /** The exchange marked with this instance's name, in a cluster. */
  private named(exchange: Exchange): Exchange {
    return this.instance === undefined ? exchange : { ...exchange, instance: this.instance }
  }

  private runningMatching(scope: Scope, filter: ExchangeFilter, limit: number): ExchangeSummary[] {
    const pattern = filter.q === undefined || filter.q === '' ? undefined : searchPattern(filter.q)
    const found: ExchangeSummary[] = []
    // A Map iterates in insertion order: oldest first.
    for (const recorder of [...this.running.values()].reverse()) {
      if (found.length >= limit) break
      if (!visibleTo(scope, orgOf(recorder))) continue
      const exchange = this.snapshot(recorder)
      if (!matchesFilter(exchange, filter) || (pattern !== undefined && !matchesText(exchange, pattern))) continue
      found.push(summaryOf(exchange))
    }
    return found
  }

  private publishUpdates(): void {
    this.updateTimer = undefined
    const due = [...this.updates]
    this.updates.clear()
    if (!this.live.wanted) return
    for (const recorder of due) {
      if (recorder.endedAt !== null) continue
      const exchange = this.snapshot(recorder)
      this.live.publish({ type: 'exchange.updated', exchange: summaryOf(exchange) }, exchange.org)
    }
  }

  private ended(recorder: ExchangeRecorder): void {
    this.running.delete(recorder.id)
    this.updates.delete(recorder)
    const { watchers } = recorder
    const { store } = this.current
    // Capture may have been turned off while it ran: its watchers are still told how it ended.
    if (store === undefined && watchers === undefined && !this.live.wanted) return
    // Watchers are given the record whole; otherwise a store that keeps bytes at hand is given them in place of their texts.
    const maxBytes = this.current.limits.max_exchange_bytes
    const built = store?.keepsBytesAtHand === true && watchers === undefined ? buildStoredExchange(recorder, maxBytes) : { exchange: buildExchange(recorder, maxBytes), known: undefined }
    const exchange = this.named(built.exchange)
    if (store !== undefined) {
      store.add(exchange, built.known ?? knownBytesOf(recorder, exchange))
      this.shared?.ended(summaryOf(exchange))
    }
    if (watchers !== undefined) for (const watcher of [...watchers]) watcher.ended(exchange)
    if (this.live.wanted) this.live.publish({ type: 'exchange.ended', exchange: summaryOf(exchange) }, exchange.org)
  }
}

function orgOf(recorder: ExchangeRecorder): string | null {
  return recorder.principal?.org ?? null
}
