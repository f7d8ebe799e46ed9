import type { ByteChunks } from '../http/json-chunks'
import type { ReplicaStatus } from '../../shared/api/health'
import type { FinishReason, ToolCallDelta, Usage } from '../../shared/api/chat-response'
import type { EmbeddingsRequest } from '../../shared/api/embeddings'
import type { StopSignal } from '../generation/stop-signal'
import type { GenerationRequest } from './generation-request'

/**
 * What a backend produces while generating. `tokens` is what each event adds to the reply's token
 * count (the gateway's count: exact for the scripted model, an estimate for a model server), so
 * the gateway counts every backend's replies the same way.
 */
export type GenerationEvent =
  | { kind: 'content'; text: string; tokens: number }
  /** The model's reasoning, before or between its content (`reasoning_content` to the client). */
  | { kind: 'reasoning'; text: string; tokens: number }
  /** One streamed piece of a tool call, passed on exactly as the model made it. */
  | { kind: 'tool_call'; delta: ToolCallDelta; tokens: number }
  /** `derived`: the model server sent none, and the gateway derived it from how its stream ended. */
  | { kind: 'finish'; reason: FinishReason; derived?: boolean }
  /** A model server's own usage report, which replaces the gateway's count. */
  | { kind: 'usage'; usage: Usage }

export interface GenerationInput {
  /** Endpoint-neutral: a conversation or a plain prompt, and the forms a model server may take it in. */
  request: GenerationRequest
  /**
   * After planning: what is left of the context window, never more than the client asked;
   * undefined when no limit is to be sent (the model's default max_tokens is none).
   */
  maxTokens: number | undefined
  /**
   * `org` + session, when the client named a session: requests with the same key should reach
   * the same replica (its prompt-prefix cache). Undefined: spread the request anywhere.
   */
  affinityKey: string | undefined
  /** Aborted when the client leaves, someone stops the generation, or the gateway shuts down. */
  signal: StopSignal
  /** Told what is sent to a model server and what comes back (traffic capture); absent when capture is off. */
  observer?: UpstreamObserver | undefined
  /**
   * Told which model server the request is about to be sent to, before it answers: a stream whose
   * headers must leave before any server answered still names the one it waits on.
   */
  onSending?: ((replica: string) => void) | undefined
}

/**
 * What a backend that talks to a model server reports of that conversation, as it happens: the
 * very body string it sent and the very buffers it read (referenced, never copied or re-encoded).
 */
export interface UpstreamObserver {
  /**
   * `bytes`: the body as sent, when the backend sends bytes it already has (capture need not
   * measure or copy its text). `body` may be a function that makes the text when first asked:
   * a spliced body's text is made of the client's bytes, decoded only if the record needs it.
   */
  sent(replica: string, body: string | (() => string), bytes?: Buffer | ByteChunks): void
  responded(status: number, rawHeaders: readonly string[]): void
  /** A piece of a streamed reply, as read from the socket. */
  received(bytes: Buffer): void
  /** A reply read whole (JSON, or an error body), with the bytes it was decoded from when at hand. */
  receivedBody(text: string, bytes?: Buffer): void
}

/**
 * Where a backend pushes its events. A returned promise means "wait": the client's socket is full,
 * and the backend must not push more (or read more from its model server) until it settles.
 * Returning nothing — the common case — lets the next event go at once, with no await between.
 */
export type GenerationEventSink = (event: GenerationEvent) => Promise<void> | void

/** A generation that has started: what the client may now be told, and a way to run it. */
export interface StartedGeneration {
  /** The model server answering, for `X-Mortar-Upstream`; absent for in-process backends. */
  upstream?: string
  /** Whether the responder should send `: ping` comments while waiting on this backend. */
  keepAlive: boolean
  /**
   * Push the reply into `sink`. Resolves after a `finish` event (and maybe `usage`), or early
   * without one when the signal aborts; rejects with a GatewayError on a failure mid-reply. Events
   * are pushed as they arrive, not pulled: an async iterator's promise per event was a measurable
   * share of a stream's cost (docs/benchmark.md).
   */
  run(sink: GenerationEventSink): Promise<void>
}

/**
 * A model deployment. The gateway core talks to every backend through this alone: nothing outside
 * `backends/` knows whether a reply comes from the scripted model or a model server.
 */
export interface ModelBackend {
  /** Named in `X-Mortar-Deployment`. */
  readonly deployment: string
  /**
   * Begin generating. Resolves once the reply can start (a model server has answered with its
   * headers); rejects with a GatewayError before anything is sent to the client — which is why
   * upstream failures at this point are ordinary HTTP errors (502, 503, 504).
   */
  start(input: GenerationInput): Promise<StartedGeneration>
  /**
   * Its model servers' health, current to within a few seconds (it may check them). Absent for
   * in-process backends, which are up whenever the gateway is.
   */
  health?(): Promise<ReplicaStatus[]>
  /**
   * Embed the request's inputs (POST /v1/embeddings). Rejects with a GatewayError: a refusal of
   * the inputs, or a model server's failure — 501 when it serves no embeddings. Absent: the
   * deployment serves none.
   */
  embed?(job: EmbeddingsJob): Promise<EmbeddingsResult>
}

/** What POST /v1/embeddings asks of a deployment. */
export interface EmbeddingsJob {
  request: EmbeddingsRequest
  /** Aborted when the client leaves or the gateway shuts down: a model server is hung up on. */
  signal: StopSignal
  /** Told what is sent to a model server and what comes back (traffic capture). */
  observer?: UpstreamObserver | undefined
}

export interface EmbeddingsResult {
  /** One vector per input, in the inputs' order. */
  vectors: ReadonlyArray<ArrayLike<number>>
  promptTokens: number
  /** Whether `promptTokens` is the model server's own count or the gateway's. */
  usageSource: 'upstream' | 'estimate'
  /** The model server that answered; absent for in-process backends. */
  upstream?: string
}
