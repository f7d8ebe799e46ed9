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

export interface Replica extends ReplicaSettings {
  /** Until when (epoch ms) it counts as down after refusing a connection. */
  downUntil: number
  /** Some servers reject `stream_options`; learned on the first refusal, then not sent again. */
  acceptsStreamOptions: boolean
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
    this.replicas = settings.map((s) => ({ ...s, downUntil: 0, acceptsStreamOptions: true }))
  }

  /** The replicas to try for one request, in order. */
  candidates(affinityKey: string | undefined): Replica[] {
    const ordered =
      affinityKey === undefined ? this.rotated() : rendezvousOrder(this.replicas, affinityKey)
    const now = this.now()
    return [...ordered.filter((r) => r.downUntil <= now), ...ordered.filter((r) => r.downUntil > now)]
  }

  markDown(replica: Replica): void {
    replica.downUntil = this.now() + this.downMs
  }

  markUp(replica: Replica): void {
    replica.downUntil = 0
  }

  private rotated(): Replica[] {
    const start = this.nextSpread++ % this.replicas.length
    return [...this.replicas.slice(start), ...this.replicas.slice(0, start)]
  }
}
