import type { AssistantToolCall, FinishReason, ToolCallDelta, Usage } from '../../shared/api/chat-response'
import type { DialectRules } from '../../shared/api/dialect'
import type { StoppedBy } from '../../shared/api/stream-notes'
import type { GenerationRequest } from '../backends/generation-request'
import type { GatewayError } from '../errors'
import type { ErrorFormat } from '../http/error-format'
import type { OutgoingJson } from '../http/json-splice'
import type { CompletionContext } from '../pipeline/completion-context'
import type { Frames } from '../sse/frames'

/**
 * A generation endpoint (POST /v1/chat/completions, /v1/completions, …) is exactly three things:
 * an accept function, a wire format and a path. Everything else — the front door, the shared
 * stages, stop by id, disconnects, telemetry, traffic capture, dedupe — is the generation route's
 * (routes/generation-route.ts), the same for every endpoint. docs/architecture.md#adding-an-endpoint.
 */
export interface Endpoint {
  /** The route under `/v1` (and, for bare-host clients, without it): `/chat/completions`. */
  readonly path: string
  /** A new reply ID, which is also the ID to stop it by: `chatcmpl-…`, `cmpl-…`, `resp_…`, `msg_…`. */
  newId(): string
  /**
   * Parse and validate the body (already JSON) into the endpoint-neutral request; throw a
   * GatewayError (400 with `param`) to refuse. Its `forms` say how a model server is asked.
   */
  accept(body: unknown, caller: AcceptContext): AcceptedRequest
  readonly wire: WireFormat
}

export interface AcceptContext {
  /** The caller's dialect's rules (its key's, else the gateway's). */
  dialect: DialectRules
}

export interface AcceptedRequest {
  /** The catalog id the client asked for (the endpoint's default applied). */
  model: string
  request: GenerationRequest
  /**
   * This request's own wire format, when its reply depends on the request beyond the generation
   * (completions' `echo`, a Responses object that repeats its parameters); else the endpoint's.
   */
  wire?: WireFormat
}

/**
 * How a reply is written in one API: its stream's frames, its JSON object, and its error envelope.
 * It reads the generation's events and ending, never a backend.
 */
export interface WireFormat extends ErrorFormat {
  /** An encoder for one streamed reply. */
  stream(context: CompletionContext): StreamEncoder
  /** The JSON reply (`stream: false`) of a finished or stopped generation. */
  json(context: CompletionContext, reply: AssembledReply): unknown
  /**
   * The JSON reply as sent; `JSON.stringify` of it when absent. A format whose reply repeats the
   * request's long texts (a Responses object's instructions) sends their remembered JSON bytes.
   */
  jsonBody?: (body: unknown) => OutgoingJson
}

/** How a streamed reply ended, when it ended on its own or was stopped (a failure is `streamError`). */
export type StreamEnding = { kind: 'finished'; reason: FinishReason } | { kind: 'stopped'; by: StoppedBy }

/**
 * The frames of one streamed reply, in order: `start` once the stream is open, then one call per
 * generation event, then `end`. Each returns complete frames (sse/frames.ts).
 */
export interface StreamEncoder {
  /** `start` reads the exact prompt count (the Messages API's `message_start` carries it): it is counted first. */
  readonly startReadsPromptTokens?: boolean
  start(): Frames
  content(text: string): Frames
  reasoning(text: string): Frames
  toolCall(delta: ToolCallDelta): Frames
  /**
   * The last frames: finish, usage, terminator. The final frame is written with the response's
   * end. `usage` may count the prompt exactly, so it is read only when the format needs it.
   */
  end(ending: StreamEnding, usage: () => Usage): readonly string[]
  /**
   * The frames of a failure after `start`, for a format whose error event belongs to the stream
   * (the Responses API numbers it and follows it with `response.failed`); without it, the wire
   * format's stateless `streamError` is written.
   */
  error?(error: GatewayError, usage: () => Usage): Frames
}

/** A whole reply, gathered from the generation's events, for `WireFormat.json`. */
export interface AssembledReply {
  content: string
  reasoning: string
  toolCalls: AssistantToolCall[]
  /** The finish reason; `stop` for a generation stopped by a stop call (docs/api-decisions.md). */
  finishReason: FinishReason
  /** Stopped by POST /v1/generations/{id}/stop or shutdown, rather than finished. */
  stopped: boolean
  usage: Usage
}
