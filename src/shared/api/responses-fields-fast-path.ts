// The limits are the schema's own (used only when called, so the modules' cycle is harmless).
import { MAX_TOOLS } from './chat-request'
import { MAX_INPUT_ITEMS } from './responses-request'
import { isPositiveWholeNumber, isRecord } from '../narrow'

// Kept in step with responses-request.ts's body schema by a property test (responses-fields-fast-path.test.ts).
const TOOL_CHOICE_WORDS = new Set(['auto', 'none', 'required'])

/**
 * The fields of a Responses body other than its input items and tools, checked by hand in the
 * forms clients send (Codex CLI's: model, instructions, store, stream, tool_choice words,
 * parallel_tool_calls, reasoning, prompt_cache_key, a text format) — zod's object of eighteen
 * optional fields cost 10–25 µs per request on Messages' equivalent. Returns exactly what the body
 * schema with input items and tools left `unknown` gives (`null` as an absent value, written as
 * `undefined`; a string input as its one user message; `input` and `tools` arrays as they are, not
 * copied: the caller puts their checked elements in their place), or undefined for anything else
 * (an allowed_tools choice, a JSON schema format, any doubtful value), which zod then decides.
 */
export function simpleResponsesFields(json: unknown): Record<string, unknown> | undefined {
  if (!isRecord(json)) return undefined
  const body = json
  const out: Record<string, unknown> = {}
  if (!optionalInto(out, body, 'model', isString)) return undefined
  const input = body.input
  if (typeof input === 'string') out.input = [{ type: 'message', role: 'user', content: input }]
  else if (Array.isArray(input) && input.length <= MAX_INPUT_ITEMS) out.input = input
  else return undefined
  for (const [name, valid] of BEFORE_TOOLS) if (!optionalInto(out, body, name, valid)) return undefined
  if (!optionalInto(out, body, 'tools', (tools) => Array.isArray(tools) && tools.length <= MAX_TOOLS)) return undefined
  if ('tool_choice' in body) {
    const choice = body.tool_choice
    if (choice === null) out.tool_choice = undefined
    else if (typeof choice === 'string' && TOOL_CHOICE_WORDS.has(choice)) out.tool_choice = choice
    else if (isRecord(choice) && choice.type === 'function' && typeof choice.name === 'string') out.tool_choice = { type: 'function', name: choice.name }
    else return undefined
  }
  for (const [name, valid] of AFTER_TOOL_CHOICE) if (!optionalInto(out, body, name, valid)) return undefined
  if ('text' in body) {
    const text = textOf(body.text)
    if (text === INVALID) return undefined
    out.text = text
  }
  if ('reasoning' in body) {
    const reasoning = body.reasoning
    if (reasoning === null) out.reasoning = undefined
    else {
      if (!isRecord(reasoning)) return undefined
      const kept: Record<string, unknown> = {}
      if (!optionalInto(kept, reasoning, 'effort', isString) || !optionalInto(kept, reasoning, 'summary', isString)) return undefined
      out.reasoning = kept
    }
  }
  return out
}

const INVALID = Symbol('invalid')
const isString = (value: unknown) => typeof value === 'string'
const isBoolean = (value: unknown) => typeof value === 'boolean'
// z.number() refuses the infinities (NaN too); a parsed body holds none, but a caller's value might.
const isNumber = (value: unknown) => Number.isFinite(value)
const anything = () => true

/** The plain fields between input and tools, and between tool_choice and text, in the schema's order. */
const BEFORE_TOOLS: [string, (value: unknown) => boolean][] = [
  ['instructions', isString],
  ['stream', isBoolean],
  ['store', isBoolean],
  ['max_output_tokens', isPositiveWholeNumber],
]
const AFTER_TOOL_CHOICE: [string, (value: unknown) => boolean][] = [
  ['parallel_tool_calls', isBoolean],
  ['previous_response_id', isString],
  ['conversation', anything],
  ['prompt', anything],
  ['user', isString],
  ['prompt_cache_key', isString],
  ['temperature', isNumber],
  ['top_p', isNumber],
]

/**
 * The schema's `optional(…)`: an absent field stays absent, `null` is written as `undefined`,
 * anything else must pass. False when it does not.
 */
function optionalInto(out: Record<string, unknown>, from: Record<string, unknown>, name: string, valid: (value: unknown) => boolean): boolean {
  if (!(name in from)) return true
  const value = from[name]
  if (value === null || value === undefined) {
    out[name] = undefined
    return true
  }
  if (!valid(value)) return false
  out[name] = value
  return true
}

function textOf(text: unknown): unknown {
  if (text === null) return undefined
  if (!isRecord(text)) return INVALID
  if (!('format' in text)) return {}
  const format = text.format
  if (format === null) return { format: undefined }
  if (isRecord(format) && (format.type === 'text' || format.type === 'json_object')) return { format: { type: format.type } }
  return INVALID
}
