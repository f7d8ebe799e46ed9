import { createHash } from 'node:crypto'
import { HeaderName } from '../../shared/api/headers'
import { GatewayError, invalidRequest } from '../errors'
import type { JsonReply } from './respond-json'

const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/

/**
 * `X-Mortar-Dedupe: in-flight` with an `Idempotency-Key`: validated here (400 otherwise).
 * Undefined when the request does not ask for deduplication.
 */
export function parseDedupeRequest(
  dedupeHeader: string | undefined,
  idempotencyKey: string | undefined,
  request: { stream: boolean },
): { key: string } | undefined {
  if (dedupeHeader === undefined) return undefined
  if (dedupeHeader.trim().toLowerCase() !== 'in-flight') {
    throw invalidRequest(
      `${HeaderName.dedupe} has a value Mortar doesn't recognise: ${JSON.stringify(dedupeHeader.slice(0, 100))}. The only value is \`in-flight\`.`,
      HeaderName.dedupe,
    )
  }
  if (request.stream) throw invalidRequest(`${HeaderName.dedupe}: in-flight needs \`stream: false\`.`, 'stream')
  if (idempotencyKey === undefined || !IDEMPOTENCY_KEY_PATTERN.test(idempotencyKey)) {
    throw invalidRequest(
      `${HeaderName.dedupe}: in-flight needs an ${HeaderName.idempotencyKey} of 1 to 128 letters, digits, \`.\`, \`_\`, \`-\` or \`:\`.`,
      HeaderName.idempotencyKey,
    )
  }
  return { key: idempotencyKey }
}

/** What makes two requests the same: the exact body bytes and the headers that change the prompt. */
export function requestFingerprint(raw: Buffer, headers: ReadonlyArray<string | undefined>): string {
  const hash = createHash('sha256').update(raw)
  for (const header of headers) hash.update('\u0000' + (header ?? ''))
  return hash.digest('hex')
}

interface Group {
  /** The leader's completion ID, which every participant's response carries. */
  id: string
  fingerprint: string
  participants: number
  reply: Promise<JsonReply | undefined>
  abort: () => void
}

/** A started generation as a dedupe group holds it: its reply, how to abort it, what to release once it is over. */
export interface LeadGeneration {
  reply: Promise<JsonReply | undefined>
  abort: () => void
  release: () => void
}

/** The same Idempotency-Key with a different request while the first still runs. */
export function idempotencyKeyConflict(key: string): GatewayError {
  return new GatewayError(
    'idempotency_key_conflict',
    `The ${HeaderName.idempotencyKey} ${JSON.stringify(key)} is in use by a different request that is still running. Use a new key for a different request.`,
    { param: HeaderName.idempotencyKey },
  )
}

/** Who decides which requests share a generation: this instance alone, or the cluster. */
export interface DedupeCoordinator {
  join(org: string, key: string, fingerprint: string, id: string, lead: () => LeadGeneration): DedupeParticipation | Promise<DedupeParticipation>
}

export interface DedupeParticipation {
  role: 'leader' | 'shared'
  /** The leader's completion ID. */
  id: string
  /** The one generation's reply, for every participant. */
  reply: Promise<JsonReply | undefined>
  /** This participant's client went away. When the last one leaves, the generation stops. */
  leave(): void
}

/**
 * In-flight request coalescing. Concurrent, identical non-streaming requests of one organization
 * with the same Idempotency-Key share one generation: the first leads, the others wait for its
 * reply. The same key with a different request at the same time is a 409. Nothing is kept once the
 * generation ends — this is coalescing, not a cache. The generation belongs to the group, not to
 * the leader's connection: it goes on while any participant is waiting, and stops when all left.
 */
export class InFlightDedupe implements DedupeCoordinator {
  private readonly groups = new Map<string, Group>()

  get size(): number {
    return this.groups.size
  }

  /** Whether `org` has a group under this key right now. */
  has(org: string, key: string): boolean {
    return this.groups.has(groupScope(org, key))
  }

  join(
    org: string,
    key: string,
    fingerprint: string,
    /** This request's own completion ID, which becomes the group's if it leads. */
    id: string,
    /** Start the generation: its reply, how to abort it, and what to release once it is over. */
    lead: () => LeadGeneration,
  ): DedupeParticipation {
    const scope = groupScope(org, key)
    let group = this.groups.get(scope)
    let role: DedupeParticipation['role'] = 'shared'
    if (group !== undefined && group.fingerprint !== fingerprint) throw idempotencyKeyConflict(key)
    if (group === undefined) {
      role = 'leader'
      const started = lead()
      const created: Group = { id, fingerprint, participants: 0, reply: started.reply, abort: started.abort }
      group = created
      this.groups.set(scope, created)
      // Forget the group before releasing the generation, so that once the gateway is idle no
      // group is left behind either.
      const settle = () => {
        if (this.groups.get(scope) === created) this.groups.delete(scope)
        started.release()
      }
      started.reply.then(settle, settle)
    }
    const joined = group
    joined.participants++
    let left = false
    return {
      role,
      id: joined.id,
      reply: joined.reply,
      leave: () => {
        if (left) return
        left = true
        if (--joined.participants === 0) joined.abort()
      },
    }
  }
}

const groupScope = (org: string, key: string) => `${org}\u0000${key}`
