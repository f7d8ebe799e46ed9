// What one stream frame says, in a few words, for the inspector's frame list. Every chunk of a
// chat-completion stream starts `data: {"id":"chatcmpl-…`, so the raw text tells a reader
// nothing at a glance; the summary names what the chunk carries instead. The chunk is read as
// unknown JSON because it may come from any model server (llama.cpp's `reasoning_content`,
// Ollama's `reasoning`, TGI's `name: null` pieces), not only from the gateway's own writer.
import { readAnthropicEvent } from './anthropic-events'
import type { StreamFrame } from './stream-frames'

export type FrameSummaryPart =
  | { kind: 'role'; role: string }
  | { kind: 'content'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool'; index: number | null; id: string | null; name: string | null; arguments: string }
  | { kind: 'finish'; reason: string }
  | { kind: 'usage'; prompt: number | null; completion: number | null; cached: number | null }
  | { kind: 'ping' }
  | { kind: 'done' }
  | { kind: 'error'; code: string | null; message: string }
  | { kind: 'comment'; text: string }
  | { kind: 'invalid'; text: string }
  | { kind: 'partial'; text: string }
  /** A typed event with no text of its own (`response.created`, `response.output_item.done`…), by its name. */
  | { kind: 'event'; name: string; detail: string }
  /** A chunk whose delta carries nothing (`{}` or only nulls), or an `event:`/`id:` line alone. */
  | { kind: 'empty' }

export type FrameSummaryKind = FrameSummaryPart['kind']

export interface FrameSummary {
  /** What the frame is about: its first part's kind. */
  kind: FrameSummaryKind
  parts: FrameSummaryPart[]
  /** The parts as one line of text (for a tooltip, a search, a test). */
  text: string
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

const stringOrNull = (value: unknown): string | null => (typeof value === 'string' ? value : null)
const numberOrNull = (value: unknown): number | null => (typeof value === 'number' ? value : null)

function toolPart(piece: unknown): FrameSummaryPart {
  const p = isObject(piece) ? piece : {}
  const fn = isObject(p.function) ? p.function : {}
  return {
    kind: 'tool',
    index: numberOrNull(p.index),
    id: stringOrNull(p.id),
    name: stringOrNull(fn.name),
    arguments: stringOrNull(fn.arguments) ?? '',
  }
}

function deltaParts(delta: Record<string, unknown>): FrameSummaryPart[] {
  const parts: FrameSummaryPart[] = []
  const role = stringOrNull(delta.role)
  if (role !== null) parts.push({ kind: 'role', role })
  // llama.cpp, vLLM and DeepSeek say reasoning_content; Ollama and LM Studio say reasoning.
  const reasoning = stringOrNull(delta.reasoning_content) ?? stringOrNull(delta.reasoning)
  if (reasoning !== null && reasoning !== '') parts.push({ kind: 'reasoning', text: reasoning })
  const content = stringOrNull(delta.content)
  if (content !== null && content !== '') parts.push({ kind: 'content', text: content })
  if (Array.isArray(delta.tool_calls)) for (const piece of delta.tool_calls) parts.push(toolPart(piece))
  return parts
}

function chunkParts(chunk: unknown): FrameSummaryPart[] {
  if (!isObject(chunk)) return []
  const parts: FrameSummaryPart[] = []
  const choices = Array.isArray(chunk.choices) ? chunk.choices : []
  for (const choice of choices) {
    if (!isObject(choice)) continue
    if (isObject(choice.delta)) parts.push(...deltaParts(choice.delta))
    // A `text_completion` chunk's piece of text is the choice's own `text`.
    const text = stringOrNull(choice.text)
    if (text !== null && text !== '') parts.push({ kind: 'content', text })
    const reason = stringOrNull(choice.finish_reason)
    if (reason !== null) parts.push({ kind: 'finish', reason })
  }
  if (isObject(chunk.usage)) {
    const details = isObject(chunk.usage.prompt_tokens_details) ? chunk.usage.prompt_tokens_details : {}
    parts.push({
      kind: 'usage',
      prompt: numberOrNull(chunk.usage.prompt_tokens),
      completion: numberOrNull(chunk.usage.completion_tokens),
      cached: numberOrNull(details.cached_tokens),
    })
  }
  return parts
}

/** What a Responses usage object counts, in the parts' terms. */
function responsesUsagePart(usage: unknown): FrameSummaryPart[] {
  if (!isObject(usage)) return []
  const details = isObject(usage.input_tokens_details) ? usage.input_tokens_details : {}
  return [{ kind: 'usage', prompt: numberOrNull(usage.input_tokens), completion: numberOrNull(usage.output_tokens), cached: numberOrNull(details.cached_tokens) }]
}

/**
 * An event that names its type. An Anthropic one reads as the chunk it amounts to
 * (anthropic-events.ts), or by its name when it carries nothing. A Responses API one: its deltas
 * read as a chat chunk's (text, reasoning, a tool call's pieces, by output index), its terminal
 * event as the finish (the status, or why it is incomplete) and the usage; every other event by
 * its name and the item or response it is about.
 */
function eventParts(event: Record<string, unknown>): FrameSummaryPart[] {
  const type = String(event.type)
  const anthropic = readAnthropicEvent(event)
  if (anthropic !== undefined) {
    if (type === 'ping') return [{ kind: 'ping' }]
    const carried = anthropic.chunk === undefined ? [] : chunkParts(anthropic.chunk)
    return carried.length > 0 ? carried : [{ kind: 'event', name: type, detail: anthropic.detail }]
  }
  const outputIndex = numberOrNull(event.output_index)
  switch (type) {
    case 'response.output_text.delta':
      return [{ kind: 'content', text: stringOrNull(event.delta) ?? '' }]
    case 'response.reasoning_summary_text.delta':
    case 'response.reasoning_text.delta':
      return [{ kind: 'reasoning', text: stringOrNull(event.delta) ?? '' }]
    case 'response.function_call_arguments.delta':
      return [{ kind: 'tool', index: outputIndex, id: null, name: null, arguments: stringOrNull(event.delta) ?? '' }]
    case 'response.completed':
    case 'response.incomplete':
    case 'response.failed': {
      const response = isObject(event.response) ? event.response : {}
      const incomplete = isObject(response.incomplete_details) ? stringOrNull(response.incomplete_details.reason) : null
      const status = stringOrNull(response.status) ?? type.slice('response.'.length)
      return [{ kind: 'finish', reason: incomplete === null ? status : `${status}: ${incomplete}` }, ...responsesUsagePart(response.usage)]
    }
    default: {
      const item = isObject(event.item) ? event.item : undefined
      if (type === 'response.output_item.added' && item?.type === 'function_call') {
        return [{ kind: 'tool', index: outputIndex, id: stringOrNull(item.call_id), name: stringOrNull(item.name), arguments: stringOrNull(item.arguments) ?? '' }]
      }
      const response = isObject(event.response) ? event.response : undefined
      const about = item !== undefined ? [stringOrNull(item.type), stringOrNull(item.id)] : response !== undefined ? [stringOrNull(response.id)] : [stringOrNull(event.item_id)]
      return [{ kind: 'event', name: type, detail: about.filter((s) => s !== null).join(' ') }]
    }
  }
}

function frameParts(frame: StreamFrame): FrameSummaryPart[] {
  switch (frame.kind) {
    case 'chunk':
      return chunkParts(frame.chunk)
    case 'event':
      return frame.event === undefined ? [] : eventParts(frame.event)
    case 'done':
      return [{ kind: 'done' }]
    case 'ping':
      return [{ kind: 'ping' }]
    case 'error':
      return [{ kind: 'error', code: stringOrNull(frame.error?.code) ?? stringOrNull(frame.error?.type), message: stringOrNull(frame.error?.message) ?? '' }]
    case 'comment':
      return [{ kind: 'comment', text: frame.text }]
    case 'invalid':
      return [{ kind: 'invalid', text: frame.text }]
    case 'partial':
      return [{ kind: 'partial', text: frame.text }]
    case 'other':
      return []
  }
}

/** Text as a JSON string literal: quotes show where it starts and ends, \n and spaces stay visible. */
export const quoted = (text: string): string => JSON.stringify(text)

const count = (n: number | null): string => (n === null ? '?' : String(n))

/** What a part says, without its kind: the delta's text, the tool piece, the reason, the counts. */
export function partValue(part: FrameSummaryPart): string {
  switch (part.kind) {
    case 'role':
      return part.role
    case 'content':
    case 'reasoning':
      return quoted(part.text)
    case 'tool': {
      const head = [`[${part.index ?? '?'}]`, part.name, part.id === null ? null : `id ${part.id}`].filter((s) => s !== null).join(' ')
      return part.arguments === '' ? head : `${head} ${quoted(part.arguments)}`
    }
    case 'finish':
      return part.reason
    case 'usage':
      return `prompt ${count(part.prompt)} · completion ${count(part.completion)}${part.cached === null ? '' : ` · cached ${part.cached}`}`
    case 'done':
      return '[DONE]'
    case 'error':
      return [part.code, part.message].filter((s) => s !== null && s !== '').join(': ')
    case 'comment':
      return `: ${part.text}`
    case 'invalid':
    case 'partial':
      return part.text
    case 'event':
      return part.detail === '' ? part.name : `${part.name} ${part.detail}`
    case 'ping':
    case 'empty':
      return ''
  }
}

/** A part as one line: its kind, then what it says ([DONE] says it all). */
export function partText(part: FrameSummaryPart): string {
  const value = partValue(part)
  if (value === '') return part.kind
  return part.kind === 'done' ? value : `${part.kind} ${value}`
}

export function summarizeFrame(frame: StreamFrame): FrameSummary {
  const found = frameParts(frame)
  const parts: FrameSummaryPart[] = found.length > 0 ? found : [{ kind: 'empty' }]
  const first = parts[0] ?? { kind: 'empty' as const }
  return { kind: first.kind, parts, text: parts.map(partText).join(' · ') }
}
