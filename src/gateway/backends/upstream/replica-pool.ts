import { rendezvousOrder } from './rendezvous'

export interface ReplicaSettings {
  /** Named in `X-Mortar-Upstream` and in errors. */
  id: string
  /** The server's OpenAI base URL, ending before `/chat/completions` (e.g. http://127.0.0.1:8000/v1). */
  baseUrl: URL
  apiKey: string | undefined
  /** The model name the server knows, when it differs from the catalog's. */
  model: string | undefined
  timeoutMs: number
  /** Once its headers are in, how long the server may send nothing before the reply fails. */
  idleTimeoutMs: number
}

/** What the gateway has seen of a replica, for `/health` and `/v1/status`. Epoch ms; 0 is never. */
export interface ReplicaRecord {
  lastOkAt: number
  lastError: string | null
  lastErrorAt: number
  /** The last time it was reached or failed to be, by a request or a health check. */
  checkedAt: number
}

export interface Replica extends ReplicaSettings {
  /** Until when (epoch ms) it counts as down after refusing a connection. */
  downUntil: number
  /** Whether its last contact reached it (null: none yet); what `/health` reports. */
  reachable: boolean | null
  record: ReplicaRecord
  /** Some servers reject `stream_options`; learned on the first refusal, then not sent again. */
  acceptsStreamOptions: boolean
  /**
   * Paths (`/completions`, `/responses`…) it answered with 404 or 405: not asked again, so an
   * endpoint with a fallback goes straight to it. Learned on the first refusal, like stream_options.
   */
  missingPaths: Set<string>
}

/**
 * The replicas of one deployment and what we know of their health. Policy (docs/forwarding.md):
 * a replica that refuses a connection is down for `downMs`; requests try healthy replicas first,
 * in rendezvous order for a named session (so it keeps its prompt-prefix cache) or round-robin
 * otherwise, and down replicas last, so that a request still goes somewhere when all are down.
 */
export class ReplicaPool {
  readonly replicas: Replica[]
  private nextSpread = 0

  constructor(
    settings: readonly ReplicaSettings[],
    private readonly downMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.replicas = settings.map((s) => ({
      ...s,
      downUntil: 0,
      reachable: null,
      record: { lastOkAt: 0, lastError: null, lastErrorAt: 0, checkedAt: 0 },
      acceptsStreamOptions: true,
      missingPaths: new Set(),
    }))
  }

  /** The replicas to try for one request, in order. */
  candidates(affinityKey: string | undefined): readonly Replica[] {
    // One replica (the usual deployment): nothing to order.
    if (this.replicas.length === 1) return this.replicas
    const ordered =
      affinityKey === undefined ? this.rotated() : rendezvousOrder(this.replicas, affinityKey)
    const now = this.now()
    return [...ordered.filter((r) => r.downUntil <= now), ...ordered.filter((r) => r.downUntil > now)]
  }

  /** It could not be reached: tried last for a while, and reported down with why. */
  markDown(replica: Replica, error: string): void {
    const now = this.now()
    replica.downUntil = now + this.downMs
    replica.reachable = false
    Object.assign(replica.record, { lastError: error, lastErrorAt: now, checkedAt: now })
  }

  /** It answered. */
  markUp(replica: Replica): void {
    const now = this.now()
    replica.downUntil = 0
    replica.reachable = true
    replica.record.lastOkAt = now
    replica.record.checkedAt = now
  }

  /** It did not answer a health check in time: reported down, but still tried in its turn. */
  noteSilent(replica: Replica, error: string): void {
    this.noteError(replica, error)
    replica.reachable = false
  }

  /** It was reached but failed the request (an error status, a timeout, a broken stream). */
  noteError(replica: Replica, error: string): void {
    const now = this.now()
    Object.assign(replica.record, { lastError: error, lastErrorAt: now, checkedAt: now })
  }

  private rotated(): Replica[] {
    const start = this.nextSpread++ % this.replicas.length
    return [...this.replicas.slice(start), ...this.replicas.slice(0, start)]
  }
}
