import type { Usage } from '../../../shared/api/chat-response'
import type { OutgoingJson } from '../../http/json-splice'
import type { Tokenizer } from '../../tokens/tokenizer'
import { internalError } from '../../errors'
import type { GenerationRequest, Prompt } from '../generation-request'
import type { GenerationEvent } from '../model-backend'

export interface UpstreamBodyOptions {
  /** The model name the server knows. */
  model: string
  /** The planned limit; undefined sends none. */
  maxTokens: number | undefined
  /** Ask for usage in a stream (`stream_options`), for servers not known to refuse it. */
  askForUsage: boolean
}

/** Turns one streamed reply's decoded SSE data (parsed JSON) into gateway events. Stateful: one per reply. */
export interface UpstreamStreamDecoder {
  events(chunk: unknown): GenerationEvent[]
  /**
   * SSE event names whose events carry nothing it reads: such events are skipped unparsed. A
   * Responses server's first two events repeat the request's whole instructions and tools (an
   * agent's system prompt, tens of KB), which parsing would only make to throw away.
   */
  readonly unread?: ReadonlySet<string>
  /** Whether the server sent a finish reason: a clean close after one is a complete reply. */
  readonly sawFinish: boolean
  /** The finish for a stream that ended at `[DONE]` without one (marked derived). */
  derivedFinish(): GenerationEvent
}

/** A reply read whole (JSON), in the gateway's terms. */
export interface WholeReply {
  content: string
  reasoning: string | undefined
  /** Tool calls as the server wrote them (OpenAI's `tool_calls` shape), normalized by ToolCallPieces. */
  toolCalls: readonly unknown[]
  /** Empty or missing: none sent, and the gateway derives one. */
  finishReason: string | undefined
  usage: Usage | undefined
}

/**
 * One way of asking an OpenAI-compatible model server for a generation: the path under its base
 * URL, the body, and how to read its reply (streamed and whole). Each endpoint lists its forms,
 * native first; the upstream backend tries them in order.
 */
export interface UpstreamForm {
  /** Under the server's OpenAI base URL, e.g. `/chat/completions`. */
  readonly path: string
  /**
   * Whether a server may lack this path (every endpoint but chat completions, which every
   * OpenAI-compatible server has): then a 404 or 405 that is not about the model means it does,
   * and the replica is remembered to lack it, as it is for `stream_options`. A 404 on a path every
   * server has is the server's failure (502).
   */
  readonly mayBeMissing: boolean
  body(request: GenerationRequest, options: UpstreamBodyOptions): OutgoingJson
  decoder(tokenizer: Tokenizer): UpstreamStreamDecoder
  /** A JSON reply; undefined when it holds no reply (no choices). */
  whole(reply: unknown): WholeReply | undefined
  /** Top-level members of a JSON reply that `whole` never reads (what it repeats of the request): left unparsed when long (parse-whole-reply.ts). */
  readonly unreadMembers?: ReadonlySet<string>
}

/**
 * The request's prompt, when it is of the kind a form takes: a conversation for chat completions,
 * plain text for completions. Any other is a gateway bug (an endpoint listed the wrong form), never
 * a prompt silently re-shaped — a plain prompt must not end up in a chat template.
 */
export function promptOfKind<K extends Prompt['kind']>(request: GenerationRequest, kind: K, form: string): Extract<Prompt, { kind: K }> {
  if (request.prompt.kind !== kind) {
    process.stderr.write(`mortar: a ${request.prompt.kind} prompt was offered to a model server as ${form}\n`)
    throw internalError()
  }
  return request.prompt as Extract<Prompt, { kind: K }>
}
