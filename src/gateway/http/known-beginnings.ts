import type { Span } from './json-members'

/** A placeholder's value: element `index` of member `name`, or, with no index, the member's value itself. */
export interface Placed {
  readonly name: string
  readonly index: number | undefined
  readonly value: unknown
}

/** Where a body's conversation is, and what comes before it, composed: what a beginning is made from. */
export interface ConversationPlace {
  /** The conversation's member: `messages` or `input`. */
  readonly name: string
  /** The body up to the conversation's opening bracket, composed for `JSON.parse` (earlier remembered elements as `0`). */
  readonly composed: string
  /** The value of each `0` in `composed`, in order. */
  readonly placed: readonly Placed[]
  /** The members that end before the conversation starts (and, of a pending beginning, any others). */
  readonly members: ReadonlyMap<string, Span>
  /** Where the conversation's array opens. */
  readonly conversationStart: number
  /** How deep the body nested (a bound of the beginning's own depth that never exceeds the limit). */
  readonly deepest: number
  /**
   * Where each of the conversation's elements ends, as a byte offset of the body, when its bytes
   * are its text (ASCII): a body that differs from the beginning only after some element can still
   * be continued from that element's end.
   */
  readonly elementEnds: readonly number[] | undefined
}

/**
 * What one body left for the next body of its scope, which an agent makes by appending to the
 * conversation: its bytes up to the end of the conversation's last element, and that part
 * composed for `JSON.parse` with every element of the conversation (and each remembered element
 * before it) written as `0`. A body that begins with the same bytes costs a comparison of them,
 * and only what follows is scanned and parsed.
 */
export interface Beginning extends ConversationPlace {
  /**
   * The earlier body's bytes, of which the first `byteEnd` (up to the end of its conversation's
   * last element) are compared with the next body's (native, and off V8's heap, where a kept
   * text would be copied by young collections and then collected by a full one). A copy in a
   * buffer of the store's own, used again when the beginning goes: a request's own buffer, kept
   * past a young collection, would be freed only by a full one, and a body of 128 KB kept so on
   * every request made the external memory start a full collection every few dozen requests.
   */
  readonly raw: Buffer
  readonly byteEnd: number
  /** Those bytes' text length: where the text that follows starts. */
  readonly chars: number
  /** How many elements of the conversation it holds. */
  readonly count: number
}

/**
 * A beginning not made yet: the body it comes from was parsed whole, and most such bodies are
 * never continued (a prompt sent again with another last message). Its elements, as parsed, are
 * frozen and written as placeholders only once a body continues it.
 */
export interface PendingBeginning extends Omit<Beginning, 'count'> {
  readonly elements: readonly unknown[]
}

/** How many made beginnings one scope keeps: an organization may run a few agents at once. */
const PER_SCOPE = 4
/** How many buffers of beginnings that went are kept for the next ones. */
const SPARE_BUFFERS = 8
/** Buffers for beginnings are allocated in multiples of this, so that one fits a few turns more. */
const BUFFER_STEP = 64 * 1024

/**
 * How a body that was continued relates to what was kept before: its first `sharedBytes` are
 * those of `sharedWith` (a beginning kept from an earlier body of its scope, compared byte for
 * byte), and `kept` is the beginning kept from it in turn (made of its own first bytes), if one
 * was. Capture searches such a body for credentials only past the bytes an earlier body of the
 * same client was found clean in (capture/redact-credentials.ts).
 */
export interface ContinuedBytes {
  readonly sharedWith: object
  readonly sharedBytes: number
  readonly kept: object | undefined
}

/** A body's bytes to keep the first `byteEnd` of. */
export interface BodyPrefix {
  readonly raw: Buffer
  readonly byteEnd: number
  /**
   * A beginning's buffer whose first `bytes` are the body's own (compared when the body was found
   * to continue it): when that buffer is free for the body, only the bytes after those are copied.
   */
  readonly same?: { readonly buffer: Buffer; readonly bytes: number }
}

interface ScopeBeginnings {
  made: Beginning[]
  pending: PendingBeginning | undefined
}

/**
 * Each scope's latest beginnings (made ones newest first, and the latest body parsed whole as a
 * pending one), within a budget (each counted by the bytes it keeps and its composition), oldest
 * first out.
 */
export class Beginnings {
  private readonly byScope = new Map<string, ScopeBeginnings>()
  /** Every beginning kept, oldest first, with its scope and size. */
  private readonly order = new Map<Beginning | PendingBeginning, { scope: string; size: number }>()
  private usedChars = 0
  private readonly spare: Buffer[] = []

  constructor(private readonly maxChars: number) {}

  /** How many beginnings are kept, made and pending. */
  get size(): number {
    return this.order.size
  }

  made(scope: string): readonly Beginning[] {
    return this.byScope.get(scope)?.made ?? []
  }

  pending(scope: string): PendingBeginning | undefined {
    return this.byScope.get(scope)?.pending
  }

  /**
   * Keep `beginning` as the newest of its scope (`size`: the characters it holds), in place of
   * `replaced` (the one it continues, or the pending one it was made from). Returns the beginning
   * kept, if it was.
   */
  keep(scope: string, made: Omit<Beginning, 'raw'> & { raw?: Buffer }, size: number, replaced?: Beginning | PendingBeginning, body?: BodyPrefix): Beginning | undefined {
    // A beginning kept as it was made from `replaced` keeps its buffer.
    if (replaced !== undefined) this.drop(replaced, replaced.raw !== made.raw)
    if (size > this.maxChars / 4) return undefined
    const raw = body === undefined ? made.raw : this.copied(body)
    if (raw === undefined) return undefined
    const beginning: Beginning = { ...made, raw }
    const kept = this.scope(scope)
    kept.made.unshift(beginning)
    this.add(scope, beginning, size)
    while (kept.made.length > PER_SCOPE) this.drop(kept.made.at(-1)!)
    this.fit()
    return beginning
  }

  /** Keep `pending` as its scope's pending beginning, in place of the one before. */
  pend(scope: string, made: Omit<PendingBeginning, 'raw'>, size: number, body: BodyPrefix): void {
    const before = this.byScope.get(scope)?.pending
    if (before !== undefined) this.drop(before)
    if (size > this.maxChars / 4) return
    const raw = this.copied(body)
    if (raw === undefined) return
    const pending: PendingBeginning = { ...made, raw }
    const kept = this.scope(scope)
    kept.pending = pending
    this.add(scope, pending, size)
    this.fit()
  }

  /**
   * The first `byteEnd` bytes of a body, in a spare buffer that holds them or a new one; undefined
   * when the body is shorter. An agent's turn continues the beginning it replaces, whose buffer
   * (spare once that beginning is dropped) already holds all but the new turn: then only the new
   * bytes are copied, not the whole conversation again (128 KB a turn at that size).
   */
  private copied({ raw, byteEnd, same }: BodyPrefix): Buffer | undefined {
    // Never past the body: a spare buffer's rest is another body's (another organization's, maybe).
    if (byteEnd > raw.length) return undefined
    // Only a spare buffer: one a kept beginning still holds is never written to.
    const own = same === undefined ? -1 : this.spare.findIndex((buffer) => buffer === same.buffer && buffer.length >= byteEnd)
    if (same !== undefined && own !== -1) {
      const buffer = this.spare.splice(own, 1)[0]!
      const from = Math.min(same.bytes, byteEnd)
      raw.copy(buffer, from, from, byteEnd)
      return buffer
    }
    const at = this.spare.findIndex((buffer) => buffer.length >= byteEnd)
    const buffer = at === -1 ? Buffer.allocUnsafeSlow(Math.ceil((byteEnd + 1) / BUFFER_STEP) * BUFFER_STEP) : this.spare.splice(at, 1)[0]!
    raw.copy(buffer, 0, 0, byteEnd)
    return buffer
  }

  private scope(scope: string): ScopeBeginnings {
    let kept = this.byScope.get(scope)
    if (kept === undefined) {
      kept = { made: [], pending: undefined }
      this.byScope.set(scope, kept)
    }
    return kept
  }

  private add(scope: string, beginning: Beginning | PendingBeginning, size: number): void {
    this.order.set(beginning, { scope, size })
    this.usedChars += size
  }

  private fit(): void {
    for (const [oldest] of this.order) {
      if (this.usedChars <= this.maxChars) break
      this.drop(oldest)
    }
  }

  private drop(beginning: Beginning | PendingBeginning, spare = true): void {
    const entry = this.order.get(beginning)
    if (entry === undefined) return
    this.order.delete(beginning)
    this.usedChars -= entry.size
    if (spare && this.spare.length < SPARE_BUFFERS) this.spare.push(beginning.raw)
    const kept = this.byScope.get(entry.scope)
    if (kept === undefined) return
    if (kept.pending === beginning) kept.pending = undefined
    const at = kept.made.indexOf(beginning as Beginning)
    if (at !== -1) kept.made.splice(at, 1)
    if (kept.made.length === 0 && kept.pending === undefined) this.byScope.delete(entry.scope)
  }
}
