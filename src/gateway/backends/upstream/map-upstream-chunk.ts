import type { Usage } from '../../../shared/api/chat-response'
import { isRecord } from '../../../shared/narrow'
import type { Tokenizer } from '../../tokens/tokenizer'
import type { GenerationEvent } from '../model-backend'
import { ToolCallPieces } from './tool-call-pieces'

/**
 * Turns the `chat.completion.chunk`s of one streamed reply from a model server into gateway
 * events: reasoning, content, tool-call pieces (normalized by ToolCallPieces), its finish reason,
 * and its usage with any `*_details` it included. Role-only and empty pieces carry nothing and
 * are skipped; the gateway writes its own role chunk. Stateful: one per reply.
 */
export class UpstreamChunkMapper {
  private readonly pieces = new ToolCallPieces()
  private finished = false

  constructor(private readonly tokenizer: Tokenizer) {}

  events(chunk: unknown): GenerationEvent[] {
    const events: GenerationEvent[] = []
    if (!isRecord(chunk)) return events
    const { choices, usage } = chunk
    const first: unknown = Array.isArray(choices) ? choices[0] : undefined
    const choice = isRecord(first) ? first : undefined
    const delta = choice?.delta
    if (isRecord(delta)) this.deltaEvents(delta, events)
    if (typeof choice?.finish_reason === 'string' && choice.finish_reason !== '') {
      this.finished = true
      events.push({ kind: 'finish', reason: choice.finish_reason })
    }
    const reported = upstreamUsage(usage)
    if (reported !== undefined) events.push({ kind: 'usage', usage: reported })
    return events
  }

  /** Whether the server sent a finish reason: a clean close after one is a complete reply. */
  get sawFinish(): boolean {
    return this.finished
  }

  /**
   * For a stream the server ended with `[DONE]` but no finish reason (TGI with tools, vLLM):
   * `tool_calls` if it made calls, else `stop`, marked as derived.
   */
  derivedFinish(): GenerationEvent {
    this.finished = true
    return { kind: 'finish', reason: this.pieces.madeCalls ? 'tool_calls' : 'stop', derived: true }
  }

  private deltaEvents(delta: Record<string, unknown>, events: GenerationEvent[]): void {
    const reasoning = reasoningOf(delta)
    if (reasoning !== undefined) events.push({ kind: 'reasoning', text: reasoning, tokens: this.tokenizer.count(reasoning) })
    if (typeof delta.content === 'string' && delta.content !== '') {
      events.push({ kind: 'content', text: delta.content, tokens: this.tokenizer.count(delta.content) })
    }
    // TGI 2.x sent one piece as an object rather than a list of one.
    const calls = Array.isArray(delta.tool_calls) ? delta.tool_calls : typeof delta.tool_calls === 'object' && delta.tool_calls !== null ? [delta.tool_calls] : []
    calls.forEach((raw: unknown, position) => {
      const piece = this.pieces.piece(raw, position)
      if (piece === undefined) return
      const text = (piece.function?.name ?? '') + (piece.function?.arguments ?? '')
      events.push({ kind: 'tool_call', delta: piece, tokens: this.tokenizer.count(text) })
    })
  }
}

/**
 * A delta's or a message's reasoning: `reasoning_content` (vLLM, SGLang, llama.cpp, DeepSeek) or
 * `reasoning` (Ollama, LM Studio). Empty and `null` (SGLang's unused fields) are none.
 */
export function reasoningOf(part: Record<string, unknown>): string | undefined {
  const text = typeof part.reasoning_content === 'string' && part.reasoning_content !== '' ? part.reasoning_content : part.reasoning
  return typeof text === 'string' && text !== '' ? text : undefined
}

/**
 * A server's usage report: the three counts, and its `*_details` objects when it sent them (a
 * `null` detail, as SGLang sends, is left out). Anything else in it is not the client's.
 */
export function upstreamUsage(value: unknown): Usage | undefined {
  if (!isRecord(value)) return undefined
  const { prompt_tokens, completion_tokens, total_tokens, prompt_tokens_details, completion_tokens_details } = value
  if (typeof prompt_tokens !== 'number' || typeof completion_tokens !== 'number' || typeof total_tokens !== 'number') return undefined
  const usage: Usage = { prompt_tokens, completion_tokens, total_tokens }
  if (isRecord(prompt_tokens_details)) usage.prompt_tokens_details = prompt_tokens_details
  if (isRecord(completion_tokens_details)) usage.completion_tokens_details = completion_tokens_details
  return usage
}

