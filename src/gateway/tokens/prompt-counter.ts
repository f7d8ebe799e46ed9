import { longestPart, PartsMap } from '../parts-map'
import type { ChatMessage, ChatTool } from '../../shared/api/chat-request'
import { isFrozenObject, KeptByLastItem } from '../../shared/api/kept-by-last-item'
import { leadingSystemCount, QWEN_GENERATION_PROMPT, renderedTool, renderQwen2SystemBlock, renderQwen2Turns, type TemplatePiece } from './chat-template'
import { countInSlices } from './count-in-slices'
import type { TokenBounds, Tokenizer } from './tokenizer'

/** What the cache may hold, in UTF-16 code units of its keys (~2 bytes each): about 8 MB. */
export const DEFAULT_CACHE_CHARS = 4_000_000
/**
 * A run shorter than this is kept as if it were this long: what its entry costs beyond its text.
 * Short runs are kept too — the newline between two messages is one, 100 times in a long
 * conversation — since finding one costs less than tokenizing it.
 */
const SMALLEST_ENTRY_CHARS = 64
/**
 * A prompt of fewer characters than this is measured without the cache: finding and keeping its
 * runs costs more than a pass over its text, its exact count (when anything reads it) is a few
 * microseconds of tokenizing, and a conversation that grows past it is cached from then on.
 */
export const SHORTEST_CACHED_PROMPT_CHARS = 1_024

/**
 * A run the cache had no count of: its pieces, its length, its bounds once known, its text once
 * joined, and its count once it is counted (a conversation's measured beginning keeps its runs,
 * so a later turn that reuses them finds the count here).
 */
interface UncountedRun {
  readonly parts: readonly string[]
  readonly chars: number
  bounds: TokenBounds | undefined
  text: string | undefined
  count?: number
}

/** Runs gathered so far: the tokens already known (counted runs and special tokens), and the runs not counted. */
interface Runs {
  known: number
  readonly uncounted: UncountedRun[]
}

/**
 * A conversation measured up to the end of its last message, kept for the turn that extends it:
 * an agent sends its whole history again on every turn, and its remembered messages are the same
 * objects each time (http/parsed-parts.ts), so the next turn renders and measures only its new
 * messages. Valid for a conversation whose first messages render as these do (`sameMessage`),
 * after the same system block.
 */
interface MeasuredBeginning {
  /** Its messages. */
  readonly items: readonly ChatMessage[]
  /** The tools as the system block lists them. */
  readonly tools: readonly string[]
  readonly chars: number
  /** Tokens of its counted runs and special tokens, when it was measured. */
  readonly known: number
  /** Its runs that were not counted then (`count` is set on those counted since). */
  readonly uncounted: readonly UncountedRun[]
}

const textOf = (run: UncountedRun): string => (run.text ??= run.parts.join(''))

/** A rendered prompt, measured: what is known now, and the exact count on demand. */
export interface PromptMeasure {
  /**
   * A number the exact count never exceeds, found without tokenizing anything the cache lacks:
   * exact for cached runs, the tokenizer's bound for the rest. Undefined when it has no bounds.
   */
  readonly upperBound: number | undefined
  /** A number the exact count is never below, found the same way (the cached runs when it has no bounds). */
  readonly lowerBound: number
  /** How many characters the cache lacks: what the exact count has to tokenize. */
  readonly uncountedChars: number
  /** The exact count. Tokenizes what the cache lacks (and caches it) on the first call. */
  exact(): number
  /**
   * The exact count, tokenized in slices that yield to the event loop (`countInSlices`); stops
   * once the count passes `limit` and then resolves with a number over `limit`, not the count.
   */
  exactInSlices(limit: number): Promise<number>
}

/**
 * Counts rendered chat-template prompts with one tokenizer, remembering the count of every text
 * run (the text between two special tokens: one message, or a run of tool results) so that a
 * conversation's history is tokenized once, not on every turn. Runs are keyed by their full text,
 * given as the template's pieces (a PartsMap: found by the run's longest piece and proven by
 * comparing the pieces, never by copying the client's text; the long piece of a remembered message
 * is the same string object turn after turn, whose hash V8 keeps, so a history seen before costs a
 * lookup per run, not a hash of its text), so a hit is the exact count of exactly that text; memory is bounded (the runs unused longest
 * are dropped first). A run that was measured but not counted (its prompt fit the window by its
 * bounds, and nobody read the exact count) keeps its bounds until it is counted. The count is a function of the text alone, so one cache serves every
 * organization and session without telling one anything of another's prompts but, as any shared
 * cache does, through its timing.
 *
 * Counting run by run is exact: the tokenizer splits its input at special tokens before anything
 * else, so no token spans two runs.
 */
export class PromptCounter {
  // One huge prompt may not push out everybody else's history (the map keeps no entry over a quarter).
  private readonly runs: PartsMap<number | TokenBounds>
  /**
   * Conversations measured before, by their last message. Only a remembered message is the same
   * object on the next turn, and such an object is handed to its organization alone: no other
   * organization's conversation can find its entry. Earlier messages are matched by how they
   * render (`sameMessage`): a translation makes some anew each turn.
   */
  private readonly beginnings = new KeptByLastItem<MeasuredBeginning>((kept, message) => sameMessage(kept as ChatMessage, message as ChatMessage))

  constructor(
    private readonly tokenizer: Tokenizer,
    maxChars: number = DEFAULT_CACHE_CHARS,
    private readonly shortestCachedChars: number = SHORTEST_CACHED_PROMPT_CHARS,
  ) {
    // A run's long part is a message's text or a cached rendering: the same string objects turn
    // after turn when the gateway remembered the message (http/parsed-parts.ts).
    this.runs = new PartsMap(maxChars, longestPart)
  }

  measure(pieces: readonly TemplatePiece[]): PromptMeasure {
    const cached = textChars(pieces) >= this.shortestCachedChars
    const runs: Runs = { known: 0, uncounted: [] }
    this.gather(pieces, cached, runs)
    return this.measured(runs, cached)
  }

  /**
   * A conversation rendered through the Qwen2.5 template and measured, as `measure` measures it.
   * When the conversation extends one measured before — found by the object of one of its newest
   * messages, its first messages rendering as that one's did, after the same system block — only
   * its new messages are rendered and measured, and the runs measured before are taken as they
   * were (a count made since included). Then the whole conversation is kept in turn, for the next
   * turn.
   */
  measureConversation(messages: readonly ChatMessage[], tools: readonly ChatTool[]): PromptMeasure {
    const toolTexts = tools.map(renderedTool)
    const beginning = this.beginningOf(messages, toolTexts)
    const pieces = beginning === undefined ? renderQwen2SystemBlock(messages, toolTexts) : []
    renderQwen2Turns(messages, beginning?.items.length ?? leadingSystemCount(messages), pieces)
    const chars = (beginning?.chars ?? 0) + textChars(pieces) + GENERATION_PROMPT_CHARS
    const cached = chars >= this.shortestCachedChars
    const runs: Runs = { known: beginning?.known ?? 0, uncounted: [] }
    for (const run of beginning?.uncounted ?? []) {
      if (run.count !== undefined) runs.known += run.count
      else runs.uncounted.push(run)
    }
    this.gather(pieces, cached, runs)
    const last = messages.at(-1)
    // Short conversations are measured without the cache; keeping their beginnings would not pay
    // either. Nor would keeping one by a message that is not frozen: it is this request's own
    // object (one the gateway did not remember), which no later request sends again.
    if (cached && isFrozenObject(last)) {
      // One per conversation, in place of the beginning it extended.
      const measured = chars - GENERATION_PROMPT_CHARS
      this.beginnings.keep({ items: messages.slice(), tools: toolTexts, chars: measured, known: runs.known, uncounted: runs.uncounted.slice() }, beginning, measured)
    }
    this.gather(QWEN_GENERATION_PROMPT, cached, runs)
    return this.measured(runs, cached)
  }

  /**
   * The measured beginning that `messages` extend, if one ends at one of their newest messages (that
   * very object): messages that render as its own up to there, the same tools, and not between two
   * tool messages (which share one turn, so the first did not end its run there).
   */
  private beginningOf(messages: readonly ChatMessage[], tools: readonly string[]): MeasuredBeginning | undefined {
    return this.beginnings.find(messages, (beginning, end) => !(messages[end - 1]!.role === 'tool' && messages[end]?.role === 'tool') && sameStrings(beginning.tools, tools))
  }

  /** The runs of `pieces` (text between special tokens) added to `runs`: each found in the cache when `cached`. */
  private gather(pieces: readonly TemplatePiece[], cached: boolean, runs: Runs): void {
    let run: string[] = []
    let runLength = 0
    const close = () => {
      if (runLength === 0) {
        run = []
        return
      }
      const kept = cached ? this.runs.get(run) : undefined
      if (typeof kept === 'number') runs.known += kept
      else runs.uncounted.push({ parts: run, chars: runLength, bounds: kept, text: undefined })
      run = []
      runLength = 0
    }
    for (const piece of pieces) {
      if (typeof piece === 'string') {
        run.push(piece)
        runLength += piece.length
      } else {
        close()
        runs.known += 1
      }
    }
    close()
  }

  /** What is known of a prompt whose runs these are, and its exact count on demand. */
  private measured({ known, uncounted }: Runs, cached: boolean): PromptMeasure {
    const { tokenizer } = this
    let lowerBound = known
    let upperBound: number | undefined = tokenizer.bounds === undefined ? undefined : known
    let uncountedChars = 0
    for (const entry of uncounted) {
      uncountedChars += entry.chars
      if (upperBound === undefined) continue
      const bounds = entry.bounds ?? (cached ? this.boundsOf(entry) : tokenizer.bounds!(entry.parts))
      lowerBound += bounds.lower
      upperBound += bounds.upper
    }
    let exact: number | undefined
    const keep = (entry: UncountedRun, count: number): number => (cached ? this.keep(entry, count) : count)
    return {
      upperBound,
      lowerBound,
      uncountedChars,
      exact: () => (exact ??= uncounted.reduce((sum, entry) => sum + keep(entry, tokenizer.count(textOf(entry))), known)),
      exactInSlices: async (limit) => {
        if (exact !== undefined) return exact
        const tasks = uncounted.map((entry) => tokenizer.startCount(textOf(entry)))
        const total = await countInSlices(tasks, known, limit, (index, count) => keep(uncounted[index]!, count))
        if (total <= limit) exact = total
        return total
      },
    }
  }

  /** The exact count of a rendered prompt. */
  count(pieces: readonly TemplatePiece[]): number {
    return this.measure(pieces).exact()
  }

  /** How many runs and characters the cache holds, and the characters of the conversations measured it keeps. */
  get size(): { runs: number; chars: number; conversationChars: number } {
    const { entries, chars } = this.runs.size
    return { runs: entries, chars, conversationChars: this.beginnings.size }
  }

  /** Keeps what is known of a run (its count, in place of any bounds; or its bounds) and returns it. */
  private keep<T extends number | TokenBounds>(run: UncountedRun, value: T): T {
    this.runs.set(run.parts, value, Math.max(0, SMALLEST_ENTRY_CHARS - run.chars))
    if (typeof value === 'number') run.count = value
    else run.bounds = value
    return value
  }

  /**
   * A run's bounds, kept: a prompt that fits the window by its bounds is not tokenized (nobody
   * may read its exact count), so the same run comes back uncounted on the next turn, and a pass
   * over it costs more than finding it — a short one's too, for the pass's fixed cost.
   */
  private boundsOf(entry: UncountedRun): TokenBounds {
    return this.keep(entry, this.tokenizer.bounds!(entry.parts))
  }
}

const counters = new WeakMap<Tokenizer, PromptCounter>()

/** The process's counter for a tokenizer: one cache per tokenizer, shared by all requests. */
export function promptCounterFor(tokenizer: Tokenizer): PromptCounter {
  let counter = counters.get(tokenizer)
  if (counter === undefined) {
    counter = new PromptCounter(tokenizer)
    counters.set(tokenizer, counter)
  }
  return counter
}

/** The characters of a rendering's text pieces (its special tokens have none). */
function textChars(pieces: readonly TemplatePiece[]): number {
  let chars = 0
  for (const piece of pieces) if (typeof piece === 'string') chars += piece.length
  return chars
}

/** The characters of the generation prompt that ends every rendered conversation. */
const GENERATION_PROMPT_CHARS = textChars(QWEN_GENERATION_PROMPT)

/**
 * Whether two messages render alike: the same object, or messages with the same role, text and
 * calls. A translated conversation makes some of its messages anew each turn (Responses'
 * instructions as a system message, an assistant message for its calls) from the same remembered
 * strings and calls, so comparing them is mostly comparing references.
 */
function sameMessage(a: ChatMessage, b: ChatMessage): boolean {
  if (a === b) return true
  if (a.role !== b.role || a.content !== b.content) return false
  const calls = a.tool_calls
  const others = b.tool_calls
  if (calls === others) return true
  if (calls === undefined || others === undefined || calls.length !== others.length) return false
  for (let i = 0; i < calls.length; i++) {
    const call = calls[i]!
    const other = others[i]!
    if (call !== other && (call.function.name !== other.function.name || call.function.arguments !== other.function.arguments)) return false
  }
  return true
}

function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false
  return true
}
