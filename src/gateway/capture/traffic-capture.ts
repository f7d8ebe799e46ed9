import type { IncomingMessage, ServerResponse } from 'node:http'
import type { CaptureLimits, CaptureMode, CaptureStatus, Exchange, ExchangeFilter, ExchangeList, ExchangeListQuery } from '../../shared/api/traffic'
import { TRAFFIC_BASE } from '../../shared/api/traffic'
import { buildExchange, pathOf } from './build-exchange'
import { summaryOf, visibleTo, type Scope } from './exchange-filter'
import { ExchangeRecorder, type RecorderHooks } from './exchange-recorder'
import type { ExchangeStore } from './exchange-store'
import { TrafficBus } from './traffic-bus'

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

/**
 * Traffic capture: starts a recorder on every captured request (from the front door, which all
 * requests pass), keeps the ended exchanges in the store, and tells live subscribers. With mode
 * `off` there is no store and `begin` does nothing.
 */
export class TrafficCapture {
  readonly live = new TrafficBus()
  private readonly running = new Map<string, ExchangeRecorder>()
  private readonly hooks: RecorderHooks

  constructor(
    readonly mode: CaptureMode,
    readonly limits: CaptureLimits,
    private readonly store: ExchangeStore | undefined,
  ) {
    this.hooks = {
      maxExchangeBytes: limits.max_exchange_bytes,
      started: (recorder) => {
        if (this.live.size === 0) return
        const exchange = buildExchange(recorder, limits.max_exchange_bytes)
        this.live.publish({ type: 'exchange.started', exchange: summaryOf(exchange) }, exchange.org)
      },
      ended: (recorder) => this.ended(recorder),
    }
  }

  get enabled(): boolean {
    return this.store !== undefined
  }

  /** Start recording this request, if it is one that is captured. */
  begin(req: IncomingMessage, res: ServerResponse): void {
    if (this.store === undefined || !isCapturedPath(req.url)) return
    const recorder = new ExchangeRecorder(req, res, this.hooks)
    this.running.set(recorder.id, recorder)
  }

  /** Newest first. Running exchanges are not listed: the live stream announces them. */
  list(scope: Scope, query: ExchangeListQuery): ExchangeList {
    return this.store?.list(scope, query) ?? { object: 'list', data: [], next_cursor: null }
  }

  /** One exchange whole — a running one as it stands now. */
  get(scope: Scope, id: string): Exchange | undefined {
    const recorder = this.running.get(id)
    if (recorder !== undefined) {
      const snapshot = buildExchange(recorder, this.limits.max_exchange_bytes)
      return visibleTo(scope, snapshot.org) ? snapshot : undefined
    }
    return this.store?.get(scope, id)
  }

  select(scope: Scope, filter: ExchangeFilter, ids: readonly string[] | undefined): Exchange[] {
    return this.store?.select(scope, filter, ids) ?? []
  }

  clear(scope: Scope): number {
    const deleted = this.store?.clear(scope) ?? 0
    this.live.publish({ type: 'exchanges.cleared' }, scope.org)
    return deleted
  }

  status(): CaptureStatus {
    const stats = this.store?.stats() ?? { exchanges: 0, bytes: 0, evicted: 0 }
    return { mode: this.mode, limits: this.limits, ...stats }
  }

  /** Exchanges whose response has not ended yet (leak checks). */
  get runningCount(): number {
    return this.running.size
  }

  close(): void {
    this.live.closeAll()
    this.store?.close()
  }

  private ended(recorder: ExchangeRecorder): void {
    this.running.delete(recorder.id)
    if (this.store === undefined) return
    const exchange = buildExchange(recorder, this.limits.max_exchange_bytes)
    this.store.add(exchange)
    if (this.live.size > 0) this.live.publish({ type: 'exchange.ended', exchange: summaryOf(exchange) }, exchange.org)
  }
}
