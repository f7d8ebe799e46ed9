// How much of each prompt of a session the next one repeats, in the model's tokens: the prompts
// rendered with the chat template as the model server renders them (tools in the system block,
// tool calls and results as the template writes them), tokenized, and compared token by token.
import { parseChatRequest } from '../../shared/api/chat-request'
import type { PromptDifference, SessionPrefixEntry } from '../../shared/api/session-prefixes'
import { renderQwen2Prompt } from '../tokens/chat-template'
import type { Tokenizer } from '../tokens/tokenizer'

/** One exchange of the session, as the comparison needs it. */
export interface PrefixInput {
  id: string
  started_at: string
  model: string | null
  endpoint: string
  /** What the model saw (else the body as received). */
  body: string
  truncated: boolean
  cached_tokens: number | null
}

export interface RenderedPrompt {
  text: string
  /** Token ids; each special token (`<|im_start|>`, `<|im_end|>`) is one id of its own. */
  tokens: number[]
}

// Special tokens as ids no tokenizer gives text, so they compare equal only to themselves.
const SPECIAL_IDS = { '<|im_start|>': -1, '<|im_end|>': -2 } as const

/** The prompt a chat-completion body renders to, or why it does not render. */
export function renderPrompt(body: string, tokenizer: Tokenizer): RenderedPrompt | { problem: string } {
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch {
    return { problem: 'the body is not JSON' }
  }
  const parsed = parseChatRequest(json)
  if (!parsed.ok) return { problem: `not a valid chat request (${parsed.issue.message})` }
  let text = ''
  const tokens: number[] = []
  let segment = ''
  const flush = () => {
    if (segment !== '') for (const id of tokenizer.encode(segment)) tokens.push(id)
    segment = ''
  }
  for (const piece of renderQwen2Prompt(parsed.request.messages, parsed.request.tools)) {
    if (typeof piece === 'string') {
      segment += piece
      text += piece
    } else {
      flush()
      tokens.push(SPECIAL_IDS[piece.special])
      text += piece.special
    }
  }
  flush()
  return { text, tokens }
}

const BEFORE_CHARS = 120
const AFTER_CHARS = 240

/** Leading tokens the two prompts share, and where their texts first differ (null: `current` extends `previous`). */
export function comparePrompts(previous: RenderedPrompt, current: RenderedPrompt): { shared: number; difference: PromptDifference | null } {
  let shared = 0
  const limit = Math.min(previous.tokens.length, current.tokens.length)
  while (shared < limit && previous.tokens[shared] === current.tokens[shared]) shared++
  let offset = 0
  const chars = Math.min(previous.text.length, current.text.length)
  while (offset < chars && previous.text.charCodeAt(offset) === current.text.charCodeAt(offset)) offset++
  if (offset === previous.text.length) return { shared, difference: null }
  return {
    shared,
    difference: {
      offset,
      before: previous.text.slice(Math.max(0, offset - BEFORE_CHARS), offset),
      previous: previous.text.slice(offset, offset + AFTER_CHARS),
      current: current.text.slice(offset, offset + AFTER_CHARS),
    },
  }
}

/** Hands the event loop back between prompts: a long session's prompts are tens of thousands of tokens each. */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Each exchange (oldest first) against the previous readable one. `tokenizerFor` gives the
 * model's tokenizer (null for a model the catalog does not know).
 */
export async function sessionPrefixes(inputs: readonly PrefixInput[], tokenizerFor: (model: string | null) => Tokenizer | null): Promise<SessionPrefixEntry[]> {
  const out: SessionPrefixEntry[] = []
  let previous: { id: string; prompt: RenderedPrompt; tokenizer: string } | null = null
  for (const input of inputs) {
    const tokenizer = tokenizerFor(input.model)
    const entry: SessionPrefixEntry = {
      id: input.id,
      started_at: input.started_at,
      model: input.model,
      tokenizer: tokenizer?.name ?? null,
      exact: tokenizer?.exact ?? false,
      prompt_tokens: null,
      previous_id: null,
      shared_prefix_tokens: null,
      first_difference: null,
      cached_tokens: input.cached_tokens,
      note: null,
    }
    out.push(entry)
    if (!input.endpoint.endsWith('/chat/completions')) {
      entry.note = 'not a chat completion'
      continue
    }
    if (input.truncated) {
      entry.note = 'the capture was truncated, so the prompt is not whole'
      continue
    }
    if (tokenizer === null) {
      entry.note = 'no tokenizer for this model'
      continue
    }
    const prompt = renderPrompt(input.body, tokenizer)
    if ('problem' in prompt) {
      entry.note = prompt.problem
      continue
    }
    entry.prompt_tokens = prompt.tokens.length
    if (previous !== null && previous.tokenizer === tokenizer.name) {
      const { shared, difference } = comparePrompts(previous.prompt, prompt)
      entry.previous_id = previous.id
      entry.shared_prefix_tokens = shared
      entry.first_difference = difference
    } else if (previous !== null) {
      entry.previous_id = previous.id
      entry.note = `the previous prompt was counted with ${previous.tokenizer}, this one with ${tokenizer.name}`
    }
    previous = { id: input.id, prompt, tokenizer: tokenizer.name }
    await yieldToLoop()
  }
  return out
}
