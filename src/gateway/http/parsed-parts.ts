import { isUtf8 } from 'node:buffer'
import { CLOSE_BRACE, CLOSE_BRACKET, QUOTE } from './json-char-codes'
import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth'
import { membersAfterElement, topLevelMembers, type Span } from './json-members'
import { Beginnings, type Beginning, type ContinuedBytes, type PendingBeginning, type Placed } from './known-beginnings'
import { deepFreeze } from '../../shared/api/element-results'
import { PartsMap } from '../parts-map'

/**
 * The top-level arrays whose elements clients send again turn after turn: a conversation's
 * messages (chat completions, Messages), its items (Responses), its tools, a system prompt in
 * blocks (Messages).
 */
const HISTORY_MEMBERS: ReadonlySet<string> = new Set(['messages', 'input', 'tools', 'system'])
/**
 * The top-level strings clients send again turn after turn: a system prompt as one text
 * (Messages), instructions (Responses). A long one is remembered as an element is, and put in its
 * member's place.
 */
const TEXT_MEMBERS: ReadonlySet<string> = new Set(['system', 'instructions'])
/** How many of a beginning's last bytes are compared before all of it. */
const NEAR_END_BYTES = 64

/** A body's bytes as read, and whether they are ASCII (one byte per character of its text). */
export interface BodyBytes {
  readonly raw: Buffer
  readonly ascii: boolean
  /** `continueBytes` was asked already, and no beginning fitted. */
  readonly beginningsTried?: boolean
}

/**
 * How many bytes of `raw` the first `end` characters of `text` (its decoding, or a part of it
 * from an element's end on) came from: one per character when the bytes are ASCII; the text's own
 * UTF-8 length when the bytes are well-formed UTF-8. Undefined otherwise: an invalid byte decodes
 * to U+FFFD, three bytes, so the text's length would not be the bytes'.
 */
function bytesOf(raw: Buffer, ascii: boolean, text: string, end: number): number | undefined {
  if (ascii) return end
  return isUtf8(raw) ? Buffer.byteLength(text.slice(0, end)) : undefined
}

/**
 * Whether the element ending at `end` ends with a closing bracket, brace or quote, so that what
 * follows cannot change where it ends (a number could go on).
 */
function endsElement(text: string, end: number): boolean {
  const last = text.charCodeAt(end - 1)
  return last === CLOSE_BRACE || last === CLOSE_BRACKET || last === QUOTE
}

/** `beginning` with `elements` (the conversation's next ones) frozen and written as placeholders after it. */
function extended<T extends Omit<Beginning, 'raw' | 'byteEnd' | 'chars'>>(beginning: T, elements: readonly unknown[]): T {
  const placed = [...beginning.placed]
  let composed = beginning.composed
  elements.forEach((element, i) => {
    const index = beginning.count + i
    placed.push({ name: beginning.name, index, value: shared(element) })
    composed += index === 0 ? '0' : ',0'
  })
  return { ...beginning, placed, composed, count: beginning.count + elements.length }
}

/** Where a beginning cut to its first elements ends. */
type CutEnd = Pick<Beginning, 'elementEnds' | 'byteEnd' | 'chars'>

/**
 * The end of a beginning of an ASCII body cut to its first `count` elements (`ends`: where each
 * ends; `open`: just after the conversation's opening bracket, the end of a beginning of none).
 */
function cutEnd(ends: readonly number[], count: number, open: number): CutEnd {
  const end = count === 0 ? open : ends[count - 1]!
  return { elementEnds: ends.slice(0, count), byteEnd: end, chars: end }
}

/** How long the placeholders of `count` elements are in a composition: `0`, then `,0` for each further one. */
const placeholdersLength = (count: number): number => Math.max(0, 2 * count - 1)

/**
 * A pending beginning made, with its first `count` elements: all of them, or, ending at `cut`,
 * those a body shares. Of its members, those before the conversation: the ones after it are the
 * earlier body's.
 */
function madeFrom(pending: PendingBeginning, count: number, cut?: CutEnd): Beginning {
  const { elements, members, conversationStart, ...place } = pending
  const before = new Map([...members].filter(([, span]) => span.end <= conversationStart))
  return extended({ ...place, members: before, conversationStart, count: 0, ...cut }, elements.slice(0, count))
}

/**
 * How many of a beginning's first elements (`ends`: where each ends) `raw` shares byte for byte
 * with the beginning's bytes `kept`, and goes on after; fewer than all of them (a body that
 * shares all begins with the beginning). None when it shares the bytes up to the conversation's
 * opening bracket (`open`) only; -1 when not even those. A binary search that compares, natively,
 * only bytes past those known to match.
 */
function sharedElements(raw: Buffer, kept: Buffer, ends: readonly number[], open: number): number {
  let shared = 0
  let most = ends.length - 1
  while (most > shared) {
    const count = Math.ceil((shared + most) / 2)
    const from = shared === 0 ? 0 : ends[shared - 1]!
    const end = ends[count - 1]!
    if (end < raw.length && kept.compare(raw, from, end, from, end) === 0) shared = count
    else most = count - 1
  }
  if (shared === 0 && (open >= raw.length || kept.compare(raw, 0, open, 0, open) !== 0)) return -1
  return shared
}

/**
 * Whether `raw` begins with `beginning` and goes on after it. The last bytes first: a body of
 * another conversation (or the same prompt with another question) differs there, and is told
 * apart without comparing all that came before.
 */
function begins(raw: Buffer, beginning: Pick<Beginning, 'raw' | 'byteEnd'>): boolean {
  const end = beginning.byteEnd
  if (raw.length <= end) return false
  const near = Math.max(0, end - NEAR_END_BYTES)
  return beginning.raw.compare(raw, near, end, near, end) === 0 && beginning.raw.compare(raw, 0, near, 0, near) === 0
}

/** Of those, the ones that hold the conversation itself, which a client extends turn after turn. */
const CONVERSATION_MEMBERS: ReadonlySet<string> = new Set(['messages', 'input'])

/**
 * One history array's elements to look for among the remembered: the first is element `first`;
 * `at` orders the arrays. `whole`: the member's value is the one piece, a long text.
 */
interface ArrayPart {
  readonly name: string
  readonly spans: readonly Span[]
  readonly first: number
  readonly at: number
  readonly whole: boolean
}

/** A body composed for one parse, and what it leaves to put in place and to remember. */
interface Composed {
  composed: string
  placed: readonly Placed[]
  fresh: readonly { name: string; index: number | undefined; piece: string }[]
}

/** Bodies shorter than this are parsed whole: looking for known parts costs more than parsing them. */
export const SHORTEST_SPLIT_BODY_CHARS = 8_192
/**
 * Elements shorter than this are parsed each time (~1.6 µs per KB) rather than remembered: the
 * lookup, the comparison and the bookkeeping of a remembered element cost about that much.
 */
export const SHORTEST_REMEMBERED_CHARS = 1_024
/**
 * Tool definitions are remembered whatever their size: one that is not is checked against the
 * request schema (a JSON Schema inside it, by zod), translated and rendered anew on every turn,
 * which costs several times its parse.
 */
const SHORTEST_REMEMBERED_TOOL_CHARS = 0

/** The shortest element of history member `name` that is remembered. */
const shortestRemembered = (name: string): number => (name === 'tools' ? SHORTEST_REMEMBERED_TOOL_CHARS : SHORTEST_REMEMBERED_CHARS)
/**
 * How many characters of elements are remembered, over all organizations, with each value
 * counted as long as its text (a parsed value takes about as much memory as its JSON).
 */
export const REMEMBERED_CHARS_BUDGET = 16 * 1024 * 1024

/**
 * Parses request bodies, remembering the parsed elements of their history arrays: an agent sends
 * its whole conversation on every turn, and the part sent before is found here by comparing text
 * (native, no hash) instead of being parsed again, so a turn costs a scan of the body plus the
 * parse of what is new. More still when the body begins as the scope's last one did, up to the end
 * of its conversation (known-beginnings.ts): an agent's next turn is its last body with messages
 * added, so those bytes are compared and only what follows them is scanned and parsed. The value
 * is exactly what `JSON.parse` gives for the body, except that remembered elements (and, once a
 * body continues a conversation, all of its elements) are shared between requests and so
 * deep-frozen: the gateway reads requests, it never changes them in place, and a stage that tried
 * would fail loudly instead of changing another request.
 *
 * Elements and beginnings are kept per scope (the caller's organization): a hit is faster than a
 * miss, so sharing them across organizations would tell one whether another sent a text.
 */
export class ParsedParts {
  /** Keyed by [scope, element text]; a hit is proven by comparing the text (parts-map.ts). */
  private readonly remembered: PartsMap<unknown>
  private readonly beginnings: Beginnings

  constructor(private readonly budgetChars: number = REMEMBERED_CHARS_BUDGET) {
    this.remembered = new PartsMap(budgetChars)
    this.beginnings = new Beginnings(budgetChars)
  }

  /**
   * The value of `text`, JSON whose nesting has not been checked yet, and the spans of its
   * top-level members when they were found on the way. Throws `JSON.parse`'s SyntaxError for
   * text that is not JSON, and a `TooDeep` for nesting past `MAX_JSON_DEPTH`.
   */
  parse(text: string, scope: string, bytes?: BodyBytes): { value: unknown; members: Map<string, Span> | undefined } {
    if (this.budgetChars === 0 || text.length < SHORTEST_SPLIT_BODY_CHARS) return { value: parseChecked(text, MAX_JSON_DEPTH), members: undefined }
    if (bytes !== undefined && bytes.beginningsTried !== true) {
      const continued = this.continueKnown(bytes.raw, bytes.ascii, scope, text.length, (chars) => text.slice(chars))
      if (continued !== undefined) return continued
    }
    const elements = new Map<string, Span[]>()
    const nesting = { deepest: 0 }
    const members = topLevelMembers(text, HISTORY_MEMBERS, elements, nesting)
    // The scan went through every value: its depth is the text's, no second pass needed.
    if (members === undefined) return { value: parseChecked(text, MAX_JSON_DEPTH), members }
    if (nesting.deepest > MAX_JSON_DEPTH) throw new TooDeep()
    const long = (name: string) => spanLength(members.get(name)) >= shortestRemembered(name)
    const texts = textParts(text, members, elements)
    if (texts.length === 0 && ![...elements.keys()].some(long)) return { value: JSON.parse(text) as unknown, members }
    // A conversation is composed even when it is short: the next body of the scope may go on from it.
    const arrays = [...elements]
      .filter(([name, spans]) => long(name) || (CONVERSATION_MEMBERS.has(name) && spans.length > 0))
      .map(([name, spans]): ArrayPart => ({ name, spans, first: 0, at: members.get(name)!.start, whole: false }))
      .concat(texts)
      .sort((a, b) => a.at - b.at)
    const conversation = arrays.find((array) => CONVERSATION_MEMBERS.has(array.name) && array.spans.length > 0)
    try {
      const value = this.parseComposed(this.compose(text, 0, arrays, scope, '', []), scope)
      if (bytes !== undefined && conversation !== undefined) this.pend(text, bytes, value, scope, arrays, conversation, members, nesting.deepest)
      return { value, members }
    } catch (error) {
      // A piece that is not JSON: the whole body's parse says what is wrong where, as it would have.
      if (!(error instanceof SyntaxError)) throw error
      return { value: parseChecked(text, MAX_JSON_DEPTH), members }
    }
  }

  /**
   * The value of an ASCII body that begins as a known beginning of its scope, made without
   * decoding those bytes: what follows them is decoded, scanned and parsed (the rest as in
   * `parse`). Undefined when no beginning fits: then the body is to be decoded and `parse`d, told
   * that its beginnings were tried.
   */
  continueBytes(raw: Buffer, scope: string): Continued | undefined {
    if (this.budgetChars === 0 || raw.length < SHORTEST_SPLIT_BODY_CHARS) return undefined
    // ASCII: a beginning that matches is ASCII too, its byte offsets its text's.
    return this.continueKnown(raw, true, scope, raw.length, (_, byteEnd) => raw.toString('latin1', byteEnd))
  }

  /**
   * The body continued from the first of its scope's beginnings that it begins with, or else from
   * the end of the longest run of conversation elements it shares with one (`tailAfter`: its text
   * from there).
   */
  private continueKnown(raw: Buffer, ascii: boolean, scope: string, length: number, tailAfter: (chars: number, byteEnd: number) => string): Continued | undefined {
    for (const beginning of this.beginnings.made(scope)) {
      if (length <= beginning.chars || !begins(raw, beginning)) continue
      const continued = this.continueFrom(tailAfter(beginning.chars, beginning.byteEnd), raw, ascii, beginning, scope, beginning, beginning)
      if (continued !== undefined) return continued
    }
    const pending = this.beginnings.pending(scope)
    if (pending !== undefined && length > pending.chars && begins(raw, pending)) {
      return this.continueFrom(tailAfter(pending.chars, pending.byteEnd), raw, ascii, madeFrom(pending, pending.elements.length), scope, pending, pending)
    }
    const shared = this.longestShared(raw, scope)
    if (shared === undefined) return undefined
    return this.continueFrom(tailAfter(shared.beginning.chars, shared.beginning.byteEnd), raw, ascii, shared.beginning, scope, shared.replaced, shared.from)
  }

  /**
   * Of the scope's beginnings that record their elements' ends, the one whose first elements the
   * body shares the most bytes of, cut to those elements; undefined when none shares at least half
   * the body (then most of it is decoded and scanned anyway, and its remembered elements found by
   * their text serve as well). An IDE tool's next prompt often differs only in its last message (a
   * fixed system prompt, another question), or an agent rewrote a recent message (a cache marker
   * moved to the newest one).
   *
   * It replaces the beginning it is cut from when only that beginning's last element differs: the
   * body is that conversation's newer branch. When more differs, the body may be another agent's
   * with the same instructions, and both are kept.
   */
  private longestShared(raw: Buffer, scope: string): { beginning: Beginning; replaced: Beginning | PendingBeginning | undefined; from: Beginning | PendingBeginning } | undefined {
    const pending = this.beginnings.pending(scope)
    const candidates = pending === undefined ? this.beginnings.made(scope) : [...this.beginnings.made(scope), pending]
    let best: { from: Beginning | PendingBeginning; ends: readonly number[]; count: number; bytes: number } | undefined
    for (const from of candidates) {
      const ends = from.elementEnds
      if (ends === undefined || ends.length === 0) continue
      // ASCII (it records its ends), so the bracket's offset in its text is its byte offset.
      const open = from.conversationStart + 1
      // The most it could share: all its elements but the last.
      const most = ends.length === 1 ? open : ends[ends.length - 2]!
      if (most * 2 < raw.length || most <= (best?.bytes ?? 0)) continue
      const count = sharedElements(raw, from.raw, ends, open)
      if (count === -1) continue
      const bytes = count === 0 ? open : ends[count - 1]!
      if (bytes * 2 >= raw.length && bytes > (best?.bytes ?? 0)) best = { from, ends, count, bytes }
    }
    if (best === undefined) return undefined
    const { from, ends, count } = best
    const replaced = ends.length - count === 1 ? from : undefined
    const cut = cutEnd(ends, count, from.conversationStart + 1)
    if ('elements' in from) return { beginning: madeFrom(from, count, cut), replaced, from }
    const dropped = from.count - count
    const beginning: Beginning = {
      ...from,
      // A made beginning's composition ends with its elements' placeholders.
      composed: from.composed.slice(0, from.composed.length - (placeholdersLength(from.count) - placeholdersLength(count))),
      placed: from.placed.slice(0, from.placed.length - dropped),
      count,
      ...cut,
    }
    return { beginning, replaced, from }
  }

  /**
   * The body that begins with a known beginning, parsed from what follows it (`tail`): undefined when
   * what follows does not read as the rest of such a body (then the whole body is parsed, which
   * refuses it as it would have), or names again a member of the beginning.
   */
  private continueFrom(
    tail: string,
    raw: Buffer,
    ascii: boolean,
    beginning: Beginning,
    scope: string,
    replaced: Beginning | PendingBeginning | undefined,
    /** The beginning kept before whose bytes `beginning`'s are (itself, or the one it was made or cut from). */
    sharedWith: Beginning | PendingBeginning,
  ): Continued | undefined {
    const offset = beginning.chars
    const elements = new Map<string, Span[]>()
    const nesting = { deepest: beginning.deepest }
    const after = membersAfterElement(tail, beginning.name, HISTORY_MEMBERS, elements, nesting, beginning.count === 0)
    if (after === undefined) return undefined
    // A member of the beginning written again: its last value is the body's, not the one placed.
    for (const name of after.members.keys()) if (name === beginning.name || beginning.members.has(name)) return undefined
    if (nesting.deepest > MAX_JSON_DEPTH) throw new TooDeep()
    const arrays = [...elements].map(([name, spans]) => ({ name, spans, first: name === beginning.name ? beginning.count : 0, at: spans[0]?.start ?? 0, whole: false })).sort((a, b) => a.at - b.at)
    let value: Record<string, unknown>
    try {
      value = this.parseComposed(this.compose(tail, offset, arrays, scope, beginning.composed, beginning.placed), scope)
    } catch (error) {
      if (!(error instanceof SyntaxError)) throw error
      return undefined
    }
    const members = new Map(beginning.members)
    members.set(beginning.name, { start: beginning.conversationStart, end: offset + after.arrayEnd })
    for (const [name, span] of after.members) members.set(name, { start: offset + span.start, end: offset + span.end })
    const added = elements.get(beginning.name) ?? []
    const end = added.at(-1)?.end ?? 0
    const conversation = value[beginning.name]
    let kept: Beginning | undefined
    if (added.length === 0) {
      // The same conversation with other members after it: the beginning stays as it is. One cut
      // from a beginning that stays too would share its buffer, and is not kept.
      if (replaced !== undefined && replaced !== beginning) kept = this.beginnings.keep(scope, beginning, beginning.byteEnd + beginning.composed.length, replaced)
      else if (replaced === beginning) kept = beginning
    } else if (Array.isArray(conversation) && endsElement(tail, end)) {
      const addedBytes = bytesOf(raw, ascii, tail, end)
      if (addedBytes !== undefined) {
        const { raw: _earlier, ...made } = extended(beginning, conversation.slice(beginning.count))
        const byteEnd = beginning.byteEnd + addedBytes
        const elementEnds = ascii && beginning.elementEnds !== undefined ? [...beginning.elementEnds, ...added.map((span) => offset + span.end)] : undefined
        // The body's first `beginning.byteEnd` bytes were compared with the beginning's buffer.
        const same = { buffer: beginning.raw, bytes: beginning.byteEnd }
        kept = this.beginnings.keep(scope, { ...made, byteEnd, chars: offset + end, elementEnds }, byteEnd + made.composed.length, replaced, { raw, byteEnd, same })
      }
    }
    return { value, members, continued: { sharedWith, sharedBytes: beginning.byteEnd, kept } }
  }

  /**
   * `text` composed for one parse: each remembered element of `arrays` (spans of `text`, whose
   * first is element `first` of its member) written as `0`, after `composed` (a beginning's, whose
   * placeholders are `placed`).
   */
  private compose(text: string, offset: number, arrays: readonly ArrayPart[], scope: string, composed: string, placed: readonly Placed[]): Composed {
    const found: Placed[] = [...placed]
    const fresh: { name: string; index: number | undefined; piece: string }[] = []
    let from = 0
    for (const array of arrays) {
      for (const [i, { start, end }] of array.spans.entries()) {
        if (end - start < shortestRemembered(array.name)) continue
        const piece = text.slice(start, end)
        const known = this.remembered.get([scope, piece])
        const index = indexOf(array, i)
        if (known === undefined) {
          // An element too large to be kept (a multi-megabyte message) is parsed in place: making
          // its key (a copy of its text) would cost as much as its parse, for nothing.
          if (this.remembered.keeps([scope, piece], piece.length)) fresh.push({ name: array.name, index, piece })
          continue
        }
        found.push({ name: array.name, index, value: known })
        composed += text.slice(from, start) + '0'
        from = end
      }
    }
    return { composed: from === 0 ? composed + text : composed + text.slice(from), placed: found, fresh }
  }

  /**
   * One parse of the composed body, then the remembered values put in their places; the long
   * elements that were not remembered are frozen and remembered from that same parse.
   */
  private parseComposed({ composed, placed, fresh }: Composed, scope: string): Record<string, unknown> {
    const value = JSON.parse(composed) as Record<string, unknown>
    for (const { name, index, value: known } of placed) {
      if (index === undefined) value[name] = known
      else (value[name] as unknown[])[index] = known
    }
    for (const { name, index, piece } of fresh) {
      const element = shared(valueAt(value, name, index))
      this.remembered.set([scope, ownCopy(piece)], element, piece.length)
    }
    return value
  }

  /**
   * Leave what the next body of this scope may begin with: this one up to the end of its
   * conversation's last element, as parsed (pending: made only when a body continues it).
   */
  private pend(text: string, { raw, ascii }: BodyBytes, value: Record<string, unknown>, scope: string, arrays: readonly ArrayPart[], conversation: ArrayPart, members: Map<string, Span>, deepest: number): void {
    const elements = value[conversation.name]
    const end = conversation.spans.at(-1)!.end
    if (!Array.isArray(elements) || !endsElement(text, end)) return
    const byteEnd = bytesOf(raw, ascii, text, end)
    if (byteEnd === undefined) return
    const elementEnds = ascii ? conversation.spans.map((span) => span.end) : undefined
    const before = compositionBefore(text, arrays, conversation, value)
    const pending = { name: conversation.name, ...before, members, conversationStart: conversation.at, deepest, byteEnd, chars: end, elements: elements.slice(), elementEnds }
    this.beginnings.pend(scope, pending, byteEnd, { raw, byteEnd })
  }

  /** How many beginnings (made and pending) are kept, over all scopes (for tests). */
  get beginningsKept(): number {
    return this.beginnings.size
  }

  /** How many characters are remembered, values counted (for tests and the budget). */
  get rememberedChars(): number {
    return this.remembered.size.chars
  }
}

/** A body continued from a beginning of its scope: its value, its members' spans, and how its bytes relate to what was kept. */
export interface Continued {
  readonly value: unknown
  readonly members: Map<string, Span>
  readonly continued: ContinuedBytes
}

/** JSON that nests deeper than the gateway accepts. */
export class TooDeep extends Error {}

function parseChecked(text: string, depth: number): unknown {
  if (text.length > depth && jsonNestsDeeperThan(text, depth)) throw new TooDeep()
  return JSON.parse(text) as unknown
}

const spanLength = (span: Span | undefined): number => (span === undefined ? 0 : span.end - span.start)

/** Where a part's piece `i` is in the body's value: element `first + i` of its array, or, for a text, the member itself (no index). */
const indexOf = (part: ArrayPart, i: number): number | undefined => (part.whole ? undefined : part.first + i)

/** What a parsed body holds at a placeholder's place. */
const valueAt = (value: Record<string, unknown>, name: string, index: number | undefined): unknown => (index === undefined ? value[name] : (value[name] as unknown[])[index])

/**
 * `text` (a body parsed whole into `value`) composed up to its conversation's opening bracket, for
 * a beginning: each long piece before it written as `0` and placed with its value. Those not
 * remembered before are now, and parsed once, not again by every body that continues it.
 */
function compositionBefore(text: string, arrays: readonly ArrayPart[], conversation: ArrayPart, value: Record<string, unknown>): { composed: string; placed: Placed[] } {
  const placed: Placed[] = []
  let composed = ''
  let from = 0
  for (const array of arrays) {
    if (array.at >= conversation.at) break
    for (const [i, { start, end }] of array.spans.entries()) {
      if (end - start < shortestRemembered(array.name)) continue
      const index = indexOf(array, i)
      placed.push({ name: array.name, index, value: valueAt(value, array.name, index) })
      composed += text.slice(from, start) + '0'
      from = end
    }
  }
  // Kept with the beginning, so a copy of its own.
  return { composed: ownCopy(composed + text.slice(from, conversation.at + 1)), placed }
}

/** The long strings of `TEXT_MEMBERS` (`members`' values; `elements`: the members that are arrays), each one piece to remember. */
function textParts(text: string, members: ReadonlyMap<string, Span>, elements: ReadonlyMap<string, Span[]>): ArrayPart[] {
  const parts: ArrayPart[] = []
  for (const name of TEXT_MEMBERS) {
    const span = members.get(name)
    if (span === undefined || elements.has(name) || spanLength(span) < SHORTEST_REMEMBERED_CHARS || text.charCodeAt(span.start) !== QUOTE) continue
    parts.push({ name, spans: [span], first: 0, at: span.start, whole: true })
  }
  return parts
}

/**
 * Whether a request's element is one of the remembered ones: deep-frozen, so its value never
 * changes, and handed only to requests of the scope that sent it — so what is worked out from it
 * may be remembered by the object itself (shared/api/element-results.ts), with no leak across
 * organizations and no bound of its own: such an entry lives as long as the element does.
 */
export const isRememberedElement = (value: unknown): boolean => remembered.has(value as object)

const remembered = new WeakSet<object>()

/**
 * A copy of `text` of its own (flattened from a concatenation), for what is kept past the
 * request: a slice would keep the whole body alive, and with it every body's text past a young
 * collection.
 */
const ownCopy = (text: string): string => (' ' + text).slice(1)

/** An element handed to more than one request of its scope: deep-frozen, and known as such. */
function shared<T>(element: T): T {
  const frozen = deepFreeze(element)
  if (typeof frozen === 'object' && frozen !== null) remembered.add(frozen)
  return frozen
}
