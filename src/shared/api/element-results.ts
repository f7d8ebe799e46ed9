import type { z } from 'zod'

/**
 * Whether an element of a request's history arrays is an object whose value never changes: the
 * gateway's remembered elements, deep-frozen and handed again to the same organization's next
 * request (gateway/http/parsed-parts.ts). Only such an element's result may be remembered.
 */
export type Unchanging = (element: unknown) => boolean

export const NOTHING_UNCHANGING: Unchanging = () => false

/**
 * One element schema's outputs, remembered per unchanging element object. An agent sends its whole
 * history on every turn, and validating it again was the accept stage's cost per turn (~0.5 µs
 * per message); with this, an element seen before costs a lookup. Keyed by the object, not its
 * text: no hash, no comparison, and nothing to find for a caller that was not handed that object
 * (the gateway hands it only to the organization that sent it). A WeakMap: an entry lives as long
 * as its element does, which the gateway's remembered parts bound. Outputs are deep-frozen,
 * because they are shared by every request that sends the element again.
 */
export class ElementResults<T> {
  private readonly known = new WeakMap<object, T>()

  /**
   * `simple`: a hand-written check of the common shapes, exactly the schema's output when it
   * answers (undefined: the schema decides). zod's own per-element call costs about what the check
   * saves, so an element that is not remembered is worth checking by hand.
   */
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
      const remembers = typeof element === 'object' && element !== null && unchanging(element)
      const known = remembers ? this.known.get(element) : undefined
      if (known !== undefined) {
        out.push(known)
        continue
      }
      let result = this.simple(element)
      if (result === undefined) {
        const parsed = this.schema.safeParse(element)
        if (!parsed.success) return undefined
        result = parsed.data
      }
      if (remembers) this.known.set(element, deepFreeze(result))
      out.push(result)
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
