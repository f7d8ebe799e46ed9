import { z } from 'zod'

/**
 * Which dialect of the chat-completions API the gateway speaks to a caller. `mortar` is Mortar's own:
 * `stream` defaults to true, the finish chunk has no `delta`, a stopped stream has no finish chunk.
 * `openai` is for clients written against OpenAI's own defaults, which break on exactly those
 * points (docs/api-decisions.md#dialects lists each difference and why).
 *
 * One definition: config.json, `mortar serve --dialect`, `mortar keys create --dialect`, `/v1/keys`
 * and the settings page all validate with this schema.
 */
export const dialectSchema = z.enum(['mortar', 'openai'], { error: "must be 'mortar' or 'openai'" })
export type Dialect = z.output<typeof dialectSchema>
export const DIALECTS: readonly Dialect[] = dialectSchema.options
export const DEFAULT_DIALECT: Dialect = 'mortar'

/** What a dialect changes, as data: the gateway reads these rules and never branches on a name. */
export interface DialectRules {
  /** What a request that leaves `stream` out gets. */
  streamByDefault: boolean
  /** Whether the finish chunk carries `"delta": {}` (strict decoders read `choices[0].delta` on every chunk). */
  finishChunkHasDelta: boolean
  /**
   * Whether a stream stopped by POST /v1/generations/{id}/stop (or shutdown) still sends a finish
   * chunk, with `stop`: SDK helpers that assemble the stream refuse a choice without a finish reason.
   */
  stoppedStreamFinishes: boolean
}

export const DIALECT_RULES: Readonly<Record<Dialect, DialectRules>> = {
  mortar: { streamByDefault: true, finishChunkHasDelta: false, stoppedStreamFinishes: false },
  openai: { streamByDefault: false, finishChunkHasDelta: true, stoppedStreamFinishes: true },
}
