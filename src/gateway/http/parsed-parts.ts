import { jsonNestsDeeperThan, MAX_JSON_DEPTH } from './json-depth'
import { topLevelMembers, type Span } from './json-members'
import { deepFreeze } from '../../shared/api/element-results'
import { PartsMap } from '../parts-map'

/**
 * The top-level arrays whose elements clients send again turn after turn: a conversation's
 * messages (chat completions, Messages), its items (Responses), its tools, a system prompt in
 * blocks (Messages).
 */
const HISTORY_MEMBERS: ReadonlySet<string> = new Set(['messages', 'input', 'tools', 'system'])

/** Bodies shorter than this are parsed whole: looking for known parts costs more than parsing them. */
export const SHORTEST_SPLIT_BODY_CHARS = 8_192
/**
 * Elements shorter than this are parsed each time (~1.6 µs per KB) rather than remembered: the
 * lookup, the comparison and the bookkeeping of a remembered element cost about that much.
 */
export const SHORTEST_REMEMBERED_CHARS = 1_024
/**
 * How many characters of elements are remembered, over all organizations, with each value
 * counted as long as its text (a parsed value takes about as much memory as its JSON).
 */
export const REMEMBERED_CHARS_BUDGET = 16 * 1024 * 1024

/**
 * Parses request bodies, remembering the parsed elements of their history arrays: an agent sends
 * its whole conversation on every turn, and the part sent before is found here by comparing text
 * (native, no hash) instead of being parsed again, so a turn costs a scan of the body plus the
 * parse of what is new. The value is exactly what `JSON.parse` gives for the body, except that
 * remembered elements are shared between requests and so deep-frozen: the gateway reads requests,
 * it never changes them in place, and a stage that tried would fail loudly instead of changing
 * another request.
 *
 * Elements are remembered per scope (the caller's organization): a hit is faster than a miss, so
 * sharing them across organizations would tell one whether another sent a text.
 */
export class ParsedParts {
  /** Keyed by [scope, element text]; a hit is proven by comparing the text (parts-map.ts). */
  private readonly remembered: PartsMap<unknown>

  constructor(private readonly budgetChars: number = REMEMBERED_CHARS_BUDGET) {
    this.remembered = new PartsMap(budgetChars)
  }

  /**
   * The value of `text`, JSON whose nesting has not been checked yet, and the spans of its
   * top-level members when they were found on the way. Throws `JSON.parse`'s SyntaxError for
   * text that is not JSON, and a `TooDeep` for nesting past `MAX_JSON_DEPTH`.
   */
  parse(text: string, scope: string): { value: unknown; members: Map<string, Span> | undefined } {
    if (this.budgetChars === 0 || text.length < SHORTEST_SPLIT_BODY_CHARS) return { value: parseChecked(text, MAX_JSON_DEPTH), members: undefined }
    const elements = new Map<string, Span[]>()
    const nesting = { deepest: 0 }
    const members = topLevelMembers(text, HISTORY_MEMBERS, elements, nesting)
    // The scan went through every value: its depth is the text's, no second pass needed.
    if (members === undefined) return { value: parseChecked(text, MAX_JSON_DEPTH), members }
    if (nesting.deepest > MAX_JSON_DEPTH) throw new TooDeep()
    const split = [...elements].filter(([name]) => spanLength(members.get(name)) >= SHORTEST_REMEMBERED_CHARS)
    if (split.length === 0) return { value: JSON.parse(text) as unknown, members }
    try {
      return { value: this.split(text, members, split, scope), members }
    } catch (error) {
      // A piece that is not JSON: the whole body's parse says what is wrong where, as it would have.
      if (!(error instanceof SyntaxError)) throw error
      return { value: parseChecked(text, MAX_JSON_DEPTH), members }
    }
  }

  /**
   * One parse of the body with each remembered element written as `0`, then the remembered
   * values put in their places; the long elements that were not remembered are frozen and
   * remembered from that same parse.
   */
  private split(text: string, members: Map<string, Span>, split: [string, Span[]][], scope: string): unknown {
    const arrays = split.map(([name, elements]) => ({ name, elements, span: members.get(name)! })).sort((a, b) => a.span.start - b.span.start)
    const found: { name: string; index: number; value: unknown }[] = []
    const fresh: { name: string; index: number; piece: string }[] = []
    let composed = ''
    let from = 0
    for (const { name, elements } of arrays) {
      for (const [index, { start, end }] of elements.entries()) {
        if (end - start < SHORTEST_REMEMBERED_CHARS) continue
        const piece = text.slice(start, end)
        const known = this.remembered.get([scope, piece])
        if (known === undefined) {
          fresh.push({ name, index, piece })
          continue
        }
        found.push({ name, index, value: known })
        composed += text.slice(from, start) + '0'
        from = end
      }
    }
    const value = JSON.parse(found.length === 0 ? text : composed + text.slice(from)) as Record<string, unknown[]>
    for (const { name, index, value: known } of found) value[name]![index] = known
    for (const { name, index, piece } of fresh) {
      const element = deepFreeze(value[name]![index])
      if (typeof element === 'object' && element !== null) remembered.add(element)
      // A copy of its own (flattened from a concatenation): the slice would keep the whole body alive.
      this.remembered.set([scope, (' ' + piece).slice(1)], element, piece.length)
    }
    return value
  }

  /** How many characters are remembered, values counted (for tests and the budget). */
  get rememberedChars(): number {
    return this.remembered.size.chars
  }
}

/** JSON that nests deeper than the gateway accepts. */
export class TooDeep extends Error {}

function parseChecked(text: string, depth: number): unknown {
  if (text.length > depth && jsonNestsDeeperThan(text, depth)) throw new TooDeep()
  return JSON.parse(text) as unknown
}

const spanLength = (span: Span | undefined): number => (span === undefined ? 0 : span.end - span.start)

/**
 * Whether a request's element is one of the remembered ones: deep-frozen, so its value never
 * changes, and handed only to requests of the scope that sent it — so what is worked out from it
 * may be remembered by the object itself (shared/api/element-results.ts), with no leak across
 * organizations and no bound of its own: such an entry lives as long as the element does.
 */
export const isRememberedElement = (value: unknown): boolean => remembered.has(value as object)

const remembered = new WeakSet<object>()
