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
 * of the common shapes is checked by hand (`simple`), which costs less than looking it up; any
 * other — a tool and its JSON Schema, a block with `cache_control`, an image, thinking — goes
 * through the schema once per unchanging element object and is then remembered by that object.
 * Keyed by the object, not its text: no hash of the text, no comparison, and nothing to find for a
 * caller that was not handed that object (the gateway hands it only to the organization that sent
 * it). A WeakMap: an entry lives as long as its element does, which the gateway's remembered
 * parts bound. Outputs kept are deep-frozen: every request that sends the element again shares them.
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
      const simple = this.simple(element)
      if (simple !== undefined) {
        out.push(simple)
        continue
      }
      // Only frozen objects are ever kept: telling one is a bit of its shape, no lookup.
      const frozen = typeof element === 'object' && element !== null && Object.isFrozen(element)
      const known = frozen ? this.known.get(element) : undefined
      if (known !== undefined) {
        out.push(known)
        continue
      }
      const parsed = this.schema.safeParse(element)
      if (!parsed.success) return undefined
      if (frozen && unchanging(element)) this.known.set(element, deepFreeze(parsed.data))
      out.push(parsed.data)
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
