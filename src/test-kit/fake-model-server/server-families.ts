/**
 * How each family of real model server writes the same reply, as their sources, tests and captured
 * streams show it (the recordings in src/integration/fixtures/recordings are the evidence, one per
 * server and case). The fake model server builds every chunk, completion, model list, error and
 * "no such endpoint" answer through one of these, so a test or the benchmark can meet vLLM's
 * shapes, llama.cpp's or Ollama's without a recording.
 *
 * `plain` is the smallest reply every OpenAI client accepts (the keys the API requires and no
 * others); it is the default.
 */

export type ServerFamilyName = 'plain' | 'openai' | 'vllm' | 'llama.cpp' | 'ollama' | 'sglang'

export const SERVER_FAMILY_NAMES: readonly ServerFamilyName[] = ['plain', 'openai', 'vllm', 'llama.cpp', 'ollama', 'sglang']

export interface ToolCallPiece {
  index: number
  id?: string
  type?: 'function'
  function: { name?: string; arguments: string }
}

/** One piece of a reply, as a server generates it. */
export type ReplyPiece =
  | { kind: 'content'; text: string }
  | { kind: 'reasoning'; text: string }
  | { kind: 'tool'; piece: ToolCallPiece }

export interface ReplyMeta {
  id: string
  created: number
  model: string
}

export interface UsageCounts {
  prompt_tokens: number
  completion_tokens: number
  total_tokens: number
  [detail: string]: unknown
}

export interface WholeMessage {
  content: string | null
  reasoning: string | null
  toolCalls: Array<Record<string, unknown>> | null
}

/** An answer written as it is, byte for byte. */
export interface RawAnswer {
  status: number
  contentType: string
  body: string
}

type Json = Record<string, unknown>

export interface ServerFamily {
  name: ServerFamilyName
  /** the completion ID for the n-th reply of this server */
  completionId(n: number): string
  /** the first chunk's delta, before any piece; null when the server sends no such chunk */
  roleDelta(): Json | null
  pieceDelta(piece: ReplyPiece): Json
  finishDelta(): Json
  /** a chunk carrying one choice */
  chunk(meta: ReplyMeta, delta: Json, finishReason: string | null): Json
  /** the chunk after the finish chunk that carries only usage (stream_options.include_usage) */
  usageChunk(meta: ReplyMeta, usage: UsageCounts): Json
  completion(meta: ReplyMeta, message: WholeMessage, finishReason: string, usage: UsageCounts | null): Json
  /** `GET /v1/models`, and the native endpoints where the server says its context window */
  infoEndpoints(model: string, contextWindow: number | null): Record<string, unknown>
  /** the answer to a path the server does not have (how a client learns it lacks a capability) */
  notFound(method: string, path: string): RawAnswer
  /** an error answered before the stream, with this status */
  error(status: number, message: string): RawAnswer
}

const json = (status: number, body: unknown): RawAnswer => ({ status, contentType: 'application/json', body: JSON.stringify(body) })

const openAiErrorType = (status: number): string =>
  status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error'

/** OpenAI's own envelope; `plain`, `openai` and Ollama's compatibility layer write it. */
const openAiError = (status: number, message: string): RawAnswer =>
  json(status, { error: { message, type: openAiErrorType(status), param: null, code: null } })

const openAiModels = (model: string, ownedBy: string, extra: Json = {}): Json => ({
  object: 'list',
  data: [{ id: model, object: 'model', created: 1_700_000_000, owned_by: ownedBy, ...extra }],
})

/** The keys every OpenAI client needs, in OpenAI's order. */
function openAiChunk(meta: ReplyMeta, choices: Json[], extra: Json = {}): Json {
  return { id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, ...extra, choices }
}

function openAiCompletion(meta: ReplyMeta, message: Json, finishReason: string, usage: UsageCounts | null, extra: Json = {}, choiceExtra: Json = {}): Json {
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    ...extra,
    choices: [{ index: 0, message, ...choiceExtra, finish_reason: finishReason }],
    ...(usage !== null ? { usage } : {}),
  }
}

function messageOf(message: WholeMessage, reasoningKey: string | null): Json {
  return {
    role: 'assistant',
    content: message.content,
    ...(message.reasoning !== null && reasoningKey !== null ? { [reasoningKey]: message.reasoning } : {}),
    ...(message.toolCalls !== null ? { tool_calls: message.toolCalls } : {}),
  }
}

function pieceDeltaWith(reasoningKey: string): (piece: ReplyPiece) => Json {
  return (piece) =>
    piece.kind === 'content' ? { content: piece.text }
      : piece.kind === 'reasoning' ? { [reasoningKey]: piece.text }
        : { tool_calls: [piece.piece] }
}

const hexId = (n: number, length: number): string => n.toString(16).padStart(length, '0')

const plain: ServerFamily = {
  name: 'plain',
  completionId: (n) => `chatcmpl-fake${n}`,
  roleDelta: () => ({ role: 'assistant', content: '' }),
  pieceDelta: pieceDeltaWith('reasoning_content'),
  finishDelta: () => ({}),
  chunk: (meta, delta, finishReason) => openAiChunk(meta, [{ index: 0, delta, finish_reason: finishReason }]),
  usageChunk: (meta, usage) => ({ ...openAiChunk(meta, []), usage }),
  completion: (meta, message, finishReason, usage) => openAiCompletion(meta, messageOf(message, 'reasoning_content'), finishReason, usage),
  infoEndpoints: (model) => ({ 'GET /v1/models': { object: 'list', data: [{ id: model, object: 'model' }] } }),
  notFound: (method, path) => json(404, { error: { message: `no route for ${method} ${path}`, type: 'invalid_request_error', param: null, code: null } }),
  error: openAiError,
}

/** OpenAI's API: a system_fingerprint, `logprobs: null`, `refusal: null` in the role delta. */
const openai: ServerFamily = {
  ...plain,
  name: 'openai',
  completionId: (n) => `chatcmpl-${hexId(n, 24)}`,
  roleDelta: () => ({ role: 'assistant', content: '', refusal: null }),
  chunk: (meta, delta, finishReason) =>
    openAiChunk(meta, [{ index: 0, delta, logprobs: null, finish_reason: finishReason }], { system_fingerprint: 'fp_fake' }),
  usageChunk: (meta, usage) => ({ ...openAiChunk(meta, [], { system_fingerprint: 'fp_fake' }), usage }),
  completion: (meta, message, finishReason, usage) =>
    openAiCompletion(meta, { ...messageOf(message, 'reasoning_content'), refusal: null }, finishReason, usage, { system_fingerprint: 'fp_fake' }, { logprobs: null }),
  infoEndpoints: (model) => ({ 'GET /v1/models': openAiModels(model, 'system') }),
  notFound: (method, path) => json(404, { error: { message: `Invalid URL (${method} ${path})`, type: 'invalid_request_error', param: null, code: null } }),
}

/**
 * vLLM's OpenAI server (serving_chat.py): `logprobs: null` on every choice, a finish chunk with
 * `delta: {content: ""}` and `stop_reason`, `max_model_len` in /v1/models, FastAPI's 404 and its
 * own error envelope with a numeric code.
 */
const vllm: ServerFamily = {
  name: 'vllm',
  completionId: (n) => `chatcmpl-${hexId(n, 32)}`,
  roleDelta: () => ({ role: 'assistant', content: '' }),
  pieceDelta: pieceDeltaWith('reasoning_content'),
  finishDelta: () => ({ content: '' }),
  chunk: (meta, delta, finishReason) =>
    openAiChunk(meta, [{ index: 0, delta, logprobs: null, finish_reason: finishReason, ...(finishReason !== null ? { stop_reason: null } : {}) }]),
  usageChunk: (meta, usage) => ({ ...openAiChunk(meta, []), usage }),
  completion: (meta, message, finishReason, usage) =>
    openAiCompletion(meta, { ...messageOf(message, 'reasoning_content'), refusal: null }, finishReason, usage, {}, { logprobs: null, stop_reason: null }),
  infoEndpoints: (model, contextWindow) => ({
    'GET /v1/models': openAiModels(model, 'vllm', { root: model, parent: null, ...(contextWindow !== null ? { max_model_len: contextWindow } : {}) }),
  }),
  notFound: () => json(404, { detail: 'Not Found' }),
  error: (status, message) => json(status, { error: { message, type: status >= 500 ? 'InternalServerError' : 'BadRequestError', param: null, code: status } }),
}

/** llama.cpp's error types by status (server.cpp, format_error_response). */
const LLAMA_ERROR_TYPES: Record<number, string> = { 401: 'authentication_error', 403: 'permission_error', 404: 'not_found_error', 501: 'not_supported_error', 503: 'unavailable_error' }

const llamaTimings = { prompt_n: 18, prompt_ms: 41.2, prompt_per_token_ms: 2.29, prompt_per_second: 436.9, predicted_n: 1, predicted_ms: 21.5, predicted_per_token_ms: 21.5, predicted_per_second: 46.51 }

/**
 * llama.cpp's llama-server (to_json_oaicompat_chat_stream): choices first, a `timings` object on
 * every chunk, `content: null` in the role delta, `delta: {}` to finish, the window in GET /props,
 * and its own 404 and error envelope with a numeric code.
 */
const llamaCpp: ServerFamily = {
  name: 'llama.cpp',
  completionId: (n) => `chatcmpl-${hexId(n, 32)}`,
  roleDelta: () => ({ role: 'assistant', content: null }),
  pieceDelta: pieceDeltaWith('reasoning_content'),
  finishDelta: () => ({}),
  chunk: (meta, delta, finishReason) => ({
    choices: [{ finish_reason: finishReason, index: 0, delta }],
    created: meta.created,
    id: meta.id,
    model: meta.model,
    system_fingerprint: 'b6123-5c0eb5ef',
    object: 'chat.completion.chunk',
    timings: llamaTimings,
  }),
  usageChunk: (meta, usage) => ({
    choices: [],
    created: meta.created,
    id: meta.id,
    model: meta.model,
    system_fingerprint: 'b6123-5c0eb5ef',
    object: 'chat.completion.chunk',
    usage,
    timings: llamaTimings,
  }),
  completion: (meta, message, finishReason, usage) => ({
    choices: [{ finish_reason: finishReason, index: 0, message: messageOf(message, 'reasoning_content') }],
    created: meta.created,
    model: meta.model,
    system_fingerprint: 'b6123-5c0eb5ef',
    object: 'chat.completion',
    ...(usage !== null ? { usage } : {}),
    id: meta.id,
    timings: llamaTimings,
  }),
  infoEndpoints: (model, contextWindow) => ({
    'GET /v1/models': openAiModels(model, 'llamacpp', { meta: { n_ctx_train: contextWindow ?? 32768 } }),
    ...(contextWindow !== null
      ? { 'GET /props': { default_generation_settings: { n_ctx: contextWindow }, total_slots: 1, model_path: model } }
      : {}),
  }),
  notFound: () => json(404, { error: { code: 404, message: 'File Not Found', type: 'not_found_error' } }),
  error: (status, message) =>
    json(status, { error: { code: status, message, type: LLAMA_ERROR_TYPES[status] ?? (status >= 500 ? 'server_error' : 'invalid_request_error') } }),
}

/**
 * Ollama's OpenAI layer (openai/openai.go): no role-only chunk but `role` on every delta, no
 * `logprobs`, `system_fingerprint: fp_ollama`, reasoning as `reasoning`, the window in POST
 * /api/show, and Go's plain-text 404.
 */
const ollama: ServerFamily = {
  name: 'ollama',
  completionId: (n) => `chatcmpl-${n}`,
  roleDelta: () => null,
  pieceDelta: (piece) => ({ role: 'assistant', ...(piece.kind === 'reasoning' ? { content: '' } : {}), ...pieceDeltaWith('reasoning')(piece) }),
  finishDelta: () => ({ role: 'assistant', content: '' }),
  chunk: (meta, delta, finishReason) => openAiChunk(meta, [{ index: 0, delta, finish_reason: finishReason }], { system_fingerprint: 'fp_ollama' }),
  usageChunk: (meta, usage) => ({ ...openAiChunk(meta, [], { system_fingerprint: 'fp_ollama' }), usage }),
  completion: (meta, message, finishReason, usage) =>
    openAiCompletion(meta, messageOf(message, 'reasoning'), finishReason, usage, { system_fingerprint: 'fp_ollama' }),
  infoEndpoints: (model, contextWindow) => ({
    'GET /v1/models': openAiModels(model, 'library'),
    ...(contextWindow !== null
      ? { 'POST /api/show': { parameters: 'stop "<|im_end|>"', model_info: { 'general.architecture': 'qwen2', 'qwen2.context_length': contextWindow } } }
      : {}),
  }),
  notFound: () => ({ status: 404, contentType: 'text/plain', body: '404 page not found' }),
  error: openAiError,
}

/**
 * SGLang (serving_chat.py, model_dump_json): every delta field present and null when unused,
 * `matched_stop` beside finish_reason, `usage: null` on every chunk but the usage chunk,
 * `max_model_len` in /v1/models, FastAPI's 404.
 */
const sglang: ServerFamily = {
  name: 'sglang',
  completionId: (n) => hexId(n, 32),
  roleDelta: () => ({ role: 'assistant', content: '', reasoning_content: null, tool_calls: null }),
  pieceDelta: (piece) => ({ role: null, content: null, reasoning_content: null, tool_calls: null, ...pieceDeltaWith('reasoning_content')(piece) }),
  finishDelta: () => ({ role: null, content: null, reasoning_content: null, tool_calls: null }),
  chunk: (meta, delta, finishReason) => ({
    ...openAiChunk(meta, [{ index: 0, delta, logprobs: null, finish_reason: finishReason, matched_stop: finishReason === 'stop' ? 151645 : null }]),
    usage: null,
  }),
  usageChunk: (meta, usage) => ({ ...openAiChunk(meta, []), usage: { ...usage, prompt_tokens_details: usage.prompt_tokens_details ?? null } }),
  completion: (meta, message, finishReason, usage) =>
    openAiCompletion(meta, { ...messageOf(message, 'reasoning_content'), tool_calls: message.toolCalls }, finishReason, usage, {}, { logprobs: null, matched_stop: null }),
  infoEndpoints: (model, contextWindow) => ({
    'GET /v1/models': openAiModels(model, 'sglang', { root: model, ...(contextWindow !== null ? { max_model_len: contextWindow } : {}) }),
  }),
  notFound: () => json(404, { detail: 'Not Found' }),
  error: (status, message) => json(status, { object: 'error', message, type: status >= 500 ? 'InternalServerError' : 'BadRequestError', param: null, code: status }),
}

export const SERVER_FAMILIES: Readonly<Record<ServerFamilyName, ServerFamily>> = {
  plain,
  openai,
  vllm,
  'llama.cpp': llamaCpp,
  ollama,
  sglang,
}
