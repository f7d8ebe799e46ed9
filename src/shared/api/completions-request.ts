import { z } from 'zod'
import { DEFAULT_MODEL_ID, optional, positiveWholeNumber, type RequestValidationIssue } from './chat-request'
import { firstIssue, invalidFieldMessage } from './first-issue'

/**
 * The request contract of POST /v1/completions, OpenAI's legacy completions API as IDE
 * autocomplete uses it (Continue's tab autocomplete posts a FIM-rendered `prompt`). One prompt per
 * request; OpenAI's own defaults (`stream` false, `max_tokens` 16), whatever the caller's dialect.
 * Fields it does not name (temperature, stop, top_p, seed…) are passed to a model server as sent.
 */

/** OpenAI's default when a completions request sends no max_tokens. */
export const COMPLETIONS_DEFAULT_MAX_TOKENS = 16

const one = (field: string) => z.literal(1, { error: `must be 1: Mortar answers one ${field} per request` })

export const completionsRequestSchema = z.object(
  {
    model: optional(z.string({ error: 'must be a string' })),
    prompt: z.union([z.string(), z.tuple([z.string()])], {
      error: 'is required: a string (or an array of one string; Mortar answers one prompt per request)',
    }),
    suffix: optional(z.string({ error: 'must be a string' })),
    stream: optional(z.boolean({ error: 'must be a boolean' })),
    stream_options: optional(
      z.object({ include_usage: optional(z.boolean({ error: 'must be a boolean' })) }, { error: 'must be an object' }),
    ),
    max_tokens: optional(positiveWholeNumber),
    echo: optional(z.boolean({ error: 'must be a boolean' })),
    n: optional(one('choice')),
    best_of: optional(one('choice')),
    user: optional(z.string({ error: 'must be a string' })),
  },
  { error: 'The request body must be a JSON object' },
)

type CompletionsRequestBody = z.output<typeof completionsRequestSchema>

/** A completions request as the gateway reads it: defaults applied, the prompt one string. */
export interface CompletionsRequest {
  model: string
  prompt: string
  suffix: string | undefined
  stream: boolean
  includeUsage: boolean
  /** The client's, else 16 (OpenAI's default); planning lowers it to what the window leaves. */
  maxTokens: number
  /** Whether the reply begins with the prompt (OpenAI's `echo`); done by the gateway, never asked of a server. */
  echo: boolean
  user: string | undefined
  /** Fields the contract does not name, for a model server. */
  extraFields: Record<string, unknown>
}

const CONTRACT_FIELDS = new Set(Object.keys(completionsRequestSchema.shape))

function normalize(body: CompletionsRequestBody, raw: Record<string, unknown>): CompletionsRequest {
  const extraFields: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(raw)) if (!CONTRACT_FIELDS.has(key)) extraFields[key] = value
  return {
    model: body.model ?? DEFAULT_MODEL_ID,
    prompt: typeof body.prompt === 'string' ? body.prompt : body.prompt[0],
    suffix: body.suffix,
    stream: body.stream ?? false,
    includeUsage: body.stream_options?.include_usage ?? false,
    maxTokens: body.max_tokens ?? COMPLETIONS_DEFAULT_MAX_TOKENS,
    echo: body.echo ?? false,
    user: body.user,
    extraFields,
  }
}

/** Validate a parsed JSON body; the first issue is what a client gets told. */
export function parseCompletionsRequest(json: unknown): { ok: true; request: CompletionsRequest } | { ok: false; issue: RequestValidationIssue } {
  const result = completionsRequestSchema.safeParse(json)
  if (result.success) return { ok: true, request: normalize(result.data, json as Record<string, unknown>) }
  const first = firstIssue(result.error)
  return { ok: false, issue: { param: first.param, message: invalidFieldMessage(first) } }
}
