import type { z } from 'zod'

/**
 * A reader of one `data:` payload of a live event stream: the event if it is JSON that `schema`
 * accepts, else undefined — an event of a newer gateway is not ours to read, and is never cast.
 */
export function eventParser<S extends z.ZodType>(schema: S): (data: string) => z.output<S> | undefined {
  return (data) => {
    try {
      const parsed = schema.safeParse(JSON.parse(data))
      return parsed.success ? parsed.data : undefined
    } catch {
      return undefined
    }
  }
}
