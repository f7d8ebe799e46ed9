import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { exchangeSchema, type Exchange } from '../../shared/api/traffic'
import type { Scope } from '../capture/exchange-filter'
import { parseRedisValue } from './redis-message'
import type { RedisLink } from './redis-link'

/** What an instance's own capture answers for the cluster. */
export interface LocalExchanges {
  get(scope: Scope, id: string): Exchange | undefined
  clear(scope: Scope): number
}

/**
 * Exchange records across the cluster: each stays with the instance that captured it, and one
 * asked for elsewhere is fetched from it over pub/sub. A lookup goes to every instance on
 * `mortar:traffic:get`; each answers on the asker's `mortar:traffic:answer:<instance>` with the
 * record, or none when it holds no such exchange for that scope (the holder checks the scope
 * itself, as for its own requests). The asker takes the first record, stops at once when every
 * instance said none, and gives up after LOOKUP_WAIT_MS — answered as an unknown ID, so nothing
 * hangs on Redis or on a slow instance. A clear is told to every instance on `mortar:traffic:clear`.
 */
export class ExchangeLookup {
  private readonly waiting = new Map<string, Lookup>()

  constructor(
    private readonly link: RedisLink,
    private readonly instance: string,
    private readonly local: LocalExchanges,
    private readonly waitMs = LOOKUP_WAIT_MS,
  ) {
    link.subscriber.on('message', (channel: string, message: string) => this.onMessage(channel, message))
    void link.subscriber.subscribe(GET_CHANNEL, CLEAR_CHANNEL, answerChannel(instance)).catch(() => undefined)
  }

  /** The record of `id` on another instance, if the scope may see it there; undefined as for an unknown ID. */
  async get(scope: Scope, id: string): Promise<Exchange | undefined> {
    if (!this.link.connected) return undefined
    const ask = randomUUID()
    const answered = new Promise<Exchange | undefined>((resolve) => {
      const timer = setTimeout(() => done(undefined), this.waitMs)
      const done = (exchange: Exchange | undefined) => {
        clearTimeout(timer)
        this.waiting.delete(ask)
        resolve(exchange)
      }
      this.waiting.set(ask, { answer: done, nones: 0, expected: undefined })
    })
    const request: LookupRequest = { ask, id, org: scope.org, unattributed: scope.unattributed, from: this.instance }
    try {
      // Every instance hears it, this one too (and skips it): the others are who may answer.
      const receivers = await this.link.commands.publish(GET_CHANNEL, JSON.stringify(request))
      const lookup = this.waiting.get(ask)
      if (lookup !== undefined) {
        lookup.expected = receivers - 1
        if (lookup.nones >= lookup.expected) lookup.answer(undefined)
      }
    } catch {
      this.waiting.get(ask)?.answer(undefined)
    }
    return answered
  }

  /** Tell the other instances to clear what the scope can see. */
  async clearElsewhere(scope: Scope): Promise<void> {
    const request: ClearRequest = { org: scope.org, unattributed: scope.unattributed, from: this.instance }
    await this.link.commands.publish(CLEAR_CHANNEL, JSON.stringify(request))
  }

  close(): void {
    for (const { answer } of [...this.waiting.values()]) answer(undefined)
  }

  /** Every message of the shared subscriber connection comes here: only this lookup's channels are read. */
  private onMessage(channel: string, message: string): void {
    if (channel === GET_CHANNEL) {
      const request = parseRedisValue(lookupRequestSchema, message)
      if (request === undefined || request.from === this.instance) return
      const { ask, id, org, unattributed, from } = request
      const exchange = this.local.get({ org, unattributed }, id) ?? null
      const answer: LookupAnswer = { ask, exchange }
      this.link.commands.publish(answerChannel(from), JSON.stringify(answer)).catch(() => undefined)
    } else if (channel === answerChannel(this.instance)) {
      const answer = parseRedisValue(lookupAnswerSchema, message)
      const lookup = answer === undefined ? undefined : this.waiting.get(answer.ask)
      if (answer === undefined || lookup === undefined) return
      if (answer.exchange !== null) return lookup.answer(answer.exchange)
      // Answers may come before the publish has said how many instances heard it.
      lookup.nones += 1
      if (lookup.expected !== undefined && lookup.nones >= lookup.expected) lookup.answer(undefined)
    } else if (channel === CLEAR_CHANNEL) {
      const request = parseRedisValue(clearRequestSchema, message)
      if (request === undefined || request.from === this.instance) return
      this.local.clear({ org: request.org, unattributed: request.unattributed })
    }
  }
}

interface Lookup {
  answer: (exchange: Exchange | undefined) => void
  /** Instances that answered they hold no such exchange. */
  nones: number
  /** How many instances other than this one heard the question; undefined until the publish returns. */
  expected: number | undefined
}

/** How long a lookup waits for the other instances' answers. */
export const LOOKUP_WAIT_MS = 2_000

const GET_CHANNEL = 'mortar:traffic:get'
const CLEAR_CHANNEL = 'mortar:traffic:clear'
const answerChannel = (instance: string) => `mortar:traffic:answer:${instance}`

const scopeFields = { org: z.string(), unattributed: z.boolean(), from: z.string() }
const lookupRequestSchema = z.object({ ask: z.string(), id: z.string(), ...scopeFields })
const lookupAnswerSchema = z.object({ ask: z.string(), exchange: exchangeSchema.nullable() })
const clearRequestSchema = z.object(scopeFields)
type LookupRequest = z.output<typeof lookupRequestSchema>
type LookupAnswer = z.output<typeof lookupAnswerSchema>
type ClearRequest = z.output<typeof clearRequestSchema>
