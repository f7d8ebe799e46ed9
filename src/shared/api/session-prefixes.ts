import { z } from 'zod'
import { TRAFFIC_BASE } from './traffic'

/**
 * GET /v1/traffic/sessions/{session}/prefixes: for each chat completion of a session, in order, how much
 * of its rendered prompt it shares with the previous one, in the model's tokens, and where the two
 * first differ — what decides whether a model server's prefix cache can hit — beside the
 * `cached_tokens` the server reported. Computed from the captured exchanges (docs/traffic.md).
 */
export const SESSION_PREFIXES_ROUTE = `${TRAFFIC_BASE}/sessions/:session/prefixes`
export const sessionPrefixesPath = (session: string): string => `${TRAFFIC_BASE}/sessions/${encodeURIComponent(session)}/prefixes`

/** At most this many exchanges (the newest) are compared per call. */
export const MAX_PREFIX_EXCHANGES = 200

export const promptDifferenceSchema = z.object({
  /** Characters into the rendered prompt where the two first differ. */
  offset: z.number(),
  /** The rendered text just before that point (both prompts have it). */
  before: z.string(),
  /** What follows in the previous prompt, and in this one (each cut to a few hundred characters). */
  previous: z.string(),
  current: z.string(),
})
export type PromptDifference = z.output<typeof promptDifferenceSchema>

export const sessionPrefixEntrySchema = z.object({
  id: z.string(),
  started_at: z.string(),
  model: z.string().nullable(),
  /** The tokenizer that counted (`qwen2.5` is exact for Qwen2.5; others are estimates). */
  tokenizer: z.string().nullable(),
  exact: z.boolean(),
  /** Tokens in the rendered prompt, as the model saw it. */
  prompt_tokens: z.number().nullable(),
  /** The exchange compared with (the previous readable one), null for the first. */
  previous_id: z.string().nullable(),
  /** Leading tokens equal to the previous prompt's. */
  shared_prefix_tokens: z.number().nullable(),
  /** Null when the prompt extends the previous one unchanged (or there is no previous one). */
  first_difference: promptDifferenceSchema.nullable(),
  /** What the model server said it served from its prefix cache, when it said. */
  cached_tokens: z.number().nullable(),
  /** Why there is no count: not a chat completion, a body that is not one, a truncated capture. */
  note: z.string().nullable(),
})
export type SessionPrefixEntry = z.output<typeof sessionPrefixEntrySchema>

export const sessionPrefixesSchema = z.object({
  object: z.literal('session.prefixes'),
  session: z.string(),
  /** Oldest first. */
  data: z.array(sessionPrefixEntrySchema),
})
export type SessionPrefixes = z.output<typeof sessionPrefixesSchema>
