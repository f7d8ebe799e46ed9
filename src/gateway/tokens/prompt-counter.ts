import { longestPart, PartsMap } from '../parts-map'
import type { TemplatePiece } from './chat-template'
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

/** A run the cache has no count of: its pieces, its length, its bounds when kept, and its text once joined. */
interface UncountedRun {
  readonly parts: readonly string[]
  readonly chars: number
  readonly bounds: TokenBounds | undefined
  text: string | undefined
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
    let chars = 0
    for (const piece of pieces) if (typeof piece === 'string') chars += piece.length
    const cached = chars >= this.shortestCachedChars
    let known = 0
    // Runs the cache has no count of: their pieces, joined only when they are measured or tokenized.
    const uncounted: UncountedRun[] = []
    let run: string[] = []
    let runLength = 0
    const close = () => {
      if (runLength === 0) {
        run = []
        return
      }
      const kept = cached ? this.runs.get(run) : undefined
      if (typeof kept === 'number') known += kept
      else uncounted.push({ parts: run, chars: runLength, bounds: kept, text: undefined })
      run = []
      runLength = 0
    }
    for (const piece of pieces) {
      if (typeof piece === 'string') {
        run.push(piece)
        runLength += piece.length
      } else {
        close()
        known += 1
      }
    }
    close()

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

  /** How many runs and characters the cache holds. */
  get size(): { runs: number; chars: number } {
    const { entries, chars } = this.runs.size
    return { runs: entries, chars }
  }

  /** Keeps what is known of a run (its count, in place of any bounds; or its bounds) and returns it. */
  private keep<T extends number | TokenBounds>(run: UncountedRun, value: T): T {
    this.runs.set(run.parts, value, Math.max(0, SMALLEST_ENTRY_CHARS - run.chars))
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
