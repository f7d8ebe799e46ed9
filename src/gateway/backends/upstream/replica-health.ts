import type { ReplicaStatus } from '../../../shared/api/health'
import type { Replica, ReplicaPool } from './replica-pool'
import { getFromReplica, UpstreamConnectError } from './upstream-http'

/** A replica's state is refreshed by a check when nothing has been heard from it for this long. */
export const HEALTH_MAX_AGE_MS = 5_000
/** A check that gets no answer in this time counts the replica as down. */
export const HEALTH_CHECK_TIMEOUT_MS = 2_000

/**
 * Keeps the replicas' health current for `/health` and `/v1/status`. Requests already say whether
 * a replica answers; when none has for HEALTH_MAX_AGE_MS, a status request checks it with
 * `GET {baseUrl}/models` (any HTTP answer is up; no connection, or no answer in time, is down), so
 * a model server that went away shows as down even with no traffic. Concurrent status requests
 * share one round of checks, so polling UIs cost at most one check per replica per interval.
 */
export class ReplicaHealth {
  private checking: Promise<void> | undefined

  constructor(
    private readonly pool: ReplicaPool,
    private readonly now: () => number = Date.now,
  ) {}

  async current(): Promise<ReplicaStatus[]> {
    const stale = this.pool.replicas.filter((r) => this.now() - r.record.checkedAt >= HEALTH_MAX_AGE_MS)
    if (stale.length > 0) {
      this.checking ??= Promise.all(stale.map((replica) => this.check(replica))).then(() => {
        this.checking = undefined
      })
      await this.checking
    }
    return this.pool.replicas.map(replicaStatus)
  }

  private async check(replica: Replica): Promise<void> {
    try {
      await getFromReplica(replica, '/models', HEALTH_CHECK_TIMEOUT_MS)
      this.pool.markUp(replica)
    } catch (error) {
      const detail = error instanceof UpstreamConnectError ? error.message : String(error)
      // Slow to answer is not refusing connections: report it, but leave request routing alone.
      if (error instanceof UpstreamConnectError && error.kind === 'timeout') this.pool.noteSilent(replica, `no answer to a health check (${detail})`)
      else this.pool.markDown(replica, `unreachable (${detail})`)
    }
  }
}

const isoOrNull = (ms: number): string | null => (ms === 0 ? null : new Date(ms).toISOString())

export function replicaStatus(replica: Replica): ReplicaStatus {
  const { record } = replica
  return {
    id: replica.id,
    state: replica.reachable === null ? 'unknown' : replica.reachable ? 'up' : 'down',
    last_error: record.lastError,
    last_error_at: isoOrNull(record.lastErrorAt),
    last_ok_at: isoOrNull(record.lastOkAt),
  }
}
