import type { IncomingHttpHeaders } from 'node:http'
import type { ServerFamilyName, ToolCallPiece, UsageCounts } from './server-families'

export interface RecordedRequest {
  method: string
  /** The request target as received (path plus any query string), e.g. '/v1/chat/completions'. */
  path: string
  headers: IncomingHttpHeaders
  /** The parsed JSON body, fields exactly as received; undefined when the body is not a JSON object. */
  body: Record<string, unknown> | undefined
  /** true once the caller closed the connection before this server finished its response */
  hungUp: boolean
  /** resolves when the exchange is over, either way (response finished, or caller hung up) */
  ended: Promise<void>
  /** how many SSE `data:` events this server wrote for it, not counting `data: [DONE]` */
  chunksSent: number
}

export type FakeMode =
  | 'normal' // JSON or SSE depending on body.stream (missing stream = false, like OpenAI)
  | 'error-500' // 500 with the family's error envelope, message "model crashed"
  | 'error-400' // 400 with the family's error envelope (message: behavior.errorMessage)
  | 'error-status' // behavior.errorStatus with the family's error envelope (message: behavior.errorMessage)
  | 'never-answer' // reads the request, never sends headers (until the caller hangs up)
  | 'silent' // like never-answer, for every path: a hung process (informational endpoints too)
  | 'stall-before-first-token' // SSE: 200 + headers at once, then waits stallMs before the first chunk
  | 'die-mid-stream' // SSE: sends dieAfterChunks chunks, then resets the connection (TCP RST)
  | 'malformed-frame' // SSE: one good chunk, then `data: {not json`, then stays open until hung up
  | 'error-event' // SSE: one good chunk, then an error data event, ends WITHOUT [DONE]
  | 'end-without-done' // SSE: all chunks incl. finish (and usage) chunk, ends without [DONE]
  | 'ignore-max-tokens' // SSE: content delta "tok " forever until the caller hangs up
  | 'reject-stream-options' // 400 "Unrecognized request argument supplied: stream_options" when the body has stream_options; else 'normal'
  | 'replay' // 200 with behavior.replay's body, byte for byte (one write per event), then its ending

export type FakeUsage = UsageCounts

export type FakeToolCallPiece = ToolCallPiece

/** A recorded response body (src/integration/fixtures/recordings), and how the connection ends after it. */
export interface FakeReplay {
  body: string
  contentType: string
  /** close: end the response; keep-open: send nothing more until the caller hangs up; reset: TCP RST */
  ending: 'close' | 'keep-open' | 'reset'
}

export interface FakeBehavior {
  mode: FakeMode
  /** whose shapes the chunks, completions, model list, errors and 404s take */
  family: ServerFamilyName
  /** content pieces of the reply, one SSE chunk each */
  deltas: string[]
  /** reasoning pieces sent before the content, one chunk each, under the family's field name */
  reasoning: string[]
  /**
   * The pace of a stream: its first piece goes out at once, piece i at start + i × deltaDelayMs
   * (0: one event-loop turn between pieces); the finish and usage chunks follow the last piece.
   */
  deltaDelayMs: number
  /** for stall-before-first-token (ms) */
  stallMs: number
  /** for die-mid-stream: data events written before the reset (the role chunk counts) */
  dieAfterChunks: number
  finishReason: string
  /** null = never report usage */
  usage: FakeUsage | null
  /** when set, the reply is these tool-call pieces (one per chunk, as given) instead of content */
  toolCallPieces: FakeToolCallPiece[] | null
  /** message of the error modes' envelope (error-400, error-status) */
  errorMessage: string
  /** status of error-status (429, 503…) */
  errorStatus: number
  /** for replay: what to send */
  replay: FakeReplay | null
  /** sent as the `x-fake-server` response header */
  name: string
  /** the model replies name; null: the request's `model` (else 'fake-model') */
  model: string | null
  /** the window the family's informational endpoints report; null: they report none */
  contextWindow: number | null
  /**
   * Answers to the servers' own informational endpoints, by `METHOD /path` (e.g. `GET /v1/models`,
   * `GET /props`, `POST /api/show`): sent as JSON with status 200; other paths get the family's 404.
   * null: the family's own endpoints for `model` and `contextWindow`.
   */
  info: Record<string, unknown> | null
  /** wait this long before answering chat completions at all (no status, no headers), in any mode */
  headersDelayMs: number
  /**
   * A JSON completion keeps only the first max_tokens / 4 pieces (at least one) when the request
   * sets max_tokens (max_output_tokens on /v1/responses), as a server that honours it would (a piece counted as up to 4 tokens): the
   * benchmark's JSON requests ask for 16. Streams always send every piece.
   */
  honourMaxTokens: boolean
  /**
   * Answer POST /v1/responses too, as a server that speaks the Responses API does (vLLM, LM
   * Studio): the same reply in that API's shape (responses-reply.ts), in `normal` and
   * `die-mid-stream` modes. False: the family's 404, as a chat-only server answers.
   */
  speaksResponses: boolean
  /**
   * Whether it has POST /v1/completions, the legacy API: answered from `deltas` as OpenAI's
   * `text_completion` objects, JSON or streamed (normal mode only). Without it: the family's 404.
   */
  completions: boolean
}

export function defaultFakeBehavior(): FakeBehavior {
  return {
    mode: 'normal',
    family: 'plain',
    deltas: ['Hello', ' from', ' the', ' model'],
    reasoning: [],
    deltaDelayMs: 0,
    stallMs: 1000,
    dieAfterChunks: 2,
    finishReason: 'stop',
    honourMaxTokens: false,
    usage: { prompt_tokens: 11, completion_tokens: 4, total_tokens: 15, prompt_tokens_details: { cached_tokens: 8 } },
    toolCallPieces: null,
    errorMessage: 'bad request',
    errorStatus: 503,
    replay: null,
    name: 'fake',
    model: null,
    contextWindow: null,
    info: null,
    headersDelayMs: 0,
    speaksResponses: false,
    completions: false,
  }
}
