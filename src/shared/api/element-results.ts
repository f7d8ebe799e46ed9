import type { z } from 'zod'
import type { RequestValidationIssue } from './chat-request'
import { firstIssue, invalidFieldMessage } from './first-issue'

/**
 * Whether an element of a request's history arrays is an object whose value never changes: the
 * gateway's remembered elements, deep-frozen and handed again to the same organization's next
 * request (gateway/http/parsed-parts.ts). Only such an element's result may be remembered.
 */
export type Unchanging = (element: unknown) => boolean

export const NOTHING_UNCHANGING: Unchanging = () => false

/**
 * One element schema's outputs, for elements checked one by one. An agent sends its whole history
 * on every turn, and validating it with zod again cost ~0.5–1 µs per element per turn. An element
 * of the common shapes is checked by hand (`simple`); any other — a tool and its JSON Schema, a
 * block with `cache_control`, an image, thinking — goes through the schema. Either output of an
 * unchanging element object is then remembered by that object, so a request that sends the
 * element again gets the very same output, and what later stages work out from it is kept with
 * it too (`Derived`). Keyed by the object, not its text: no hash of the text, no comparison, and
 * nothing to find for a caller that was not handed that object (the gateway hands it only to the
 * organization that sent it). A WeakMap: an entry lives as long as its element does, which the
 * gateway's remembered parts bound. Outputs kept are deep-frozen: every request that sends the
 * element again shares them.
 */
export class ElementResults<T> {
  private readonly known = new WeakMap<object, T>()

  /** `simple`: a hand-written check of the common shapes, exactly the schema's output when it answers (undefined: ask the schema). */
  constructor(
    private readonly schema: z.ZodType<T>,
    private readonly simple: (element: unknown) => T | undefined = () => undefined,
  ) {}

  /**
   * The outputs of `elements` as `z.array(schema)` gives them, or undefined when it is not an
   * array or any element does not pass (the caller's whole schema then says what is wrong).
   */
  all(elements: unknown, unchanging: Unchanging): T[] | undefined {
    if (!Array.isArray(elements)) return undefined
    const out: T[] = []
    for (const element of elements as unknown[]) {
      // Only frozen objects are ever kept: telling one is a bit of its shape, no lookup.
      const frozen = typeof element === 'object' && element !== null && Object.isFrozen(element)
      const known = frozen ? this.known.get(element) : undefined
      if (known !== undefined) {
        out.push(known)
        continue
      }
      let output = this.simple(element)
      if (output === undefined) {
        const parsed = this.schema.safeParse(element)
        if (!parsed.success) return undefined
        output = parsed.data
      }
      if (frozen && unchanging(element)) {
        output = deepFreeze(output)
        this.known.set(element, output)
      }
      out.push(output)
    }
    return out
  }
}

/** Freezes a value and everything in it (what is frozen already is taken as frozen throughout). */
export function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value
  for (const inner of Object.values(value)) deepFreeze(inner)
  return Object.freeze(value)
}

/**
 * Whether `value` and everything in it are frozen, as `deepFreeze` leaves them: then none of it
 * will ever change (a freeze is never undone), so what is worked out from it may be kept with it.
 * An object frozen alone may hold what changes.
 */
export function frozenThroughout(value: unknown): boolean {
  if (typeof value !== 'object' || value === null) return true
  if (!Object.isFrozen(value)) return false
  for (const inner of Object.values(value)) if (!frozenThroughout(inner)) return false
  return true
}

/**
 * What `derive` makes of an input, kept with the input when it never changes (`frozenThroughout`,
 * checked once, when its output is first kept), deep-frozen itself: a request that sends a
 * remembered element again gets the same output objects, whose own derived values (their JSON,
 * say) are then kept as well. Any other input is derived each time. A WeakMap: an output lives as
 * long as its input.
 */
export class Derived<K extends object, V> {
  private readonly known = new WeakMap<K, V>()

  constructor(private readonly derive: (input: K) => V) {}

  of(input: K): V {
    // Most inputs that may change are not frozen at all: told apart without a lookup.
    if (!Object.isFrozen(input)) return this.derive(input)
    let output = this.known.get(input)
    if (output !== undefined) return output
    if (!frozenThroughout(input)) return this.derive(input)
    output = deepFreeze(this.derive(input))
    this.known.set(input, output)
    return output
  }
}

/** A body's validation: its output, or the first issue its client is told. */
export type Parsed<T> = { ok: true; request: T } | { ok: false; issue: RequestValidationIssue }

/**
 * A body checked in parts (`inParts`: its output when every part passes, else undefined), or by
 * the whole `schema` when a part does not pass — which words the first issue as it always did.
 */
export function parseInParts<T>(schema: z.ZodType<T>, json: unknown, inParts: (json: unknown) => T | undefined): Parsed<T> {
  const fast = inParts(json)
  if (fast !== undefined) return { ok: true, request: fast }
  const result = schema.safeParse(json)
  if (result.success) return { ok: true, request: result.data }
  const first = firstIssue(result.error)
  return { ok: false, issue: { param: first.param, message: invalidFieldMessage(first) } }
}
