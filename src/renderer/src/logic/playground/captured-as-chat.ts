import type { ChatConversation } from '../../../../shared/api/chat-request'
import { parseCompletionsRequest } from '../../../../shared/api/completions-request'
import { parseCountTokensRequest, parseMessagesRequest } from '../../../../shared/api/messages-request'
import { messagesToChat } from '../../../../shared/api/messages-to-chat'
import { parseResponsesRequest } from '../../../../shared/api/responses-request'
import { responsesToChat } from '../../../../shared/api/responses-to-chat'
import type { Exchange } from '../../../../shared/api/traffic'
import { parseJsonObject, replayedHeaders } from '../inspector/captured-exchange'
import { FORM_BODY_FIELDS } from './playground-request'

/**
 * A captured request as the playground's: a chat-completions body (what formFromRequest reads)
 * and the X-Mortar-* headers it carried. The playground sends chat completions only, so a request
 * to another generating API is converted by the gateway's own translations (shared/api/*-to-chat),
 * the ones it runs that request by; what the form cannot hold is named, never dropped silently.
 * Requests that generate no text (embeddings, GETs) have no chat counterpart and are refused with
 * the reason, for the UI to show.
 */
export type CapturedAsChat = ({ ok: true } & OpenedRequest) | { ok: false; reason: string }

export interface OpenedRequest {
  body: Record<string, unknown>
  headers: Record<string, string>
  /** The API it was converted from, when it was not chat completions already. */
  convertedFrom: string | null
  /** What the request had that the playground's form does not carry. */
  leftOut: string[]
  /** The playground's note on it: what it was converted from and what was left out; null when neither. */
  note: string | null
}

type Converted = { body: Record<string, unknown>; leftOut: string[] } | { invalid: string }

interface CapturedApi {
  /** What the UI calls it; null for chat completions, which needs no converting. */
  name: string | null
  convert(json: Record<string, unknown>): Converted
}

/** The chat body of a conversation: the wire names formFromRequest reads. */
function chatBody(
  conversation: ChatConversation,
  fields: { model: string; stream: boolean; maxTokens: number | undefined; extraFields: Record<string, unknown> },
): Record<string, unknown> {
  const body: Record<string, unknown> = { ...fields.extraFields, model: fields.model, messages: conversation.messages, stream: fields.stream }
  if (fields.maxTokens !== undefined) body.max_tokens = fields.maxTokens
  if (conversation.tools.length > 0) {
    body.tools = conversation.tools
    if (conversation.toolChoice !== undefined) body.tool_choice = conversation.toolChoice
    if (conversation.parallelToolCalls !== undefined) body.parallel_tool_calls = conversation.parallelToolCalls
  }
  return body
}

const invalid = (issue: { param: string | null; message: string }): Converted => ({
  invalid: issue.param === null ? issue.message : `${issue.param}: ${issue.message}`,
})

/** Anthropic's request, through the translation POST /v1/messages runs it by. */
function fromMessages(parsed: ReturnType<typeof parseMessagesRequest> | ReturnType<typeof parseCountTokensRequest>): Converted {
  if (!parsed.ok) return invalid(parsed.issue)
  const { request, untranslatable } = messagesToChat(parsed.request)
  const leftOut: string[] = []
  if (untranslatable !== undefined) leftOut.push(`images and documents (the first: the ${untranslatable.what} at ${untranslatable.param})`)
  if (parsed.request.thinking !== undefined) leftOut.push('thinking')
  if (request.user !== undefined) leftOut.push('metadata.user_id')
  return { body: chatBody(request, request), leftOut }
}

function fromResponses(json: Record<string, unknown>): Converted {
  const parsed = parseResponsesRequest(json)
  if (!parsed.ok) return invalid(parsed.issue)
  const request = parsed.request
  const { conversation, extraFields } = responsesToChat(request)
  const leftOut: string[] = []
  // The gateway leaves them out of what the model sees too: they are tools OpenAI's server runs.
  if (request.ignoredToolTypes.length > 0) leftOut.push(`tools other than functions (${[...new Set(request.ignoredToolTypes)].join(', ')})`)
  if (request.input.some((item) => item.type === 'reasoning' || item.type === 'item_reference')) leftOut.push('reasoning items')
  if (request.user !== undefined) leftOut.push('user')
  if (request.promptCacheKey !== undefined) leftOut.push('prompt_cache_key')
  return { body: chatBody(conversation, { model: request.model, stream: request.stream, maxTokens: request.maxOutputTokens, extraFields }), leftOut }
}

/** A legacy completion's prompt is the one user message; its max_tokens default (16) is kept, as it was served. */
function fromCompletions(json: Record<string, unknown>): Converted {
  const parsed = parseCompletionsRequest(json)
  if (!parsed.ok) return invalid(parsed.issue)
  const request = parsed.request
  const leftOut: string[] = []
  if (request.suffix !== undefined && request.suffix !== '') leftOut.push('suffix (the text after the cursor)')
  if (request.echo) leftOut.push('echo')
  if (request.user !== undefined) leftOut.push('user')
  const body = chatBody({ messages: [{ role: 'user', content: request.prompt }], tools: [], toolChoice: undefined, parallelToolCalls: undefined }, request)
  if (request.stream) body.stream_options = { include_usage: request.includeUsage }
  return { body, leftOut }
}

/** The POST endpoints whose requests the playground can send, by their captured path. */
const CAPTURED_APIS: Record<string, CapturedApi> = {
  '/v1/chat/completions': { name: null, convert: (json) => ({ body: json, leftOut: [] }) },
  '/v1/messages': { name: 'Anthropic Messages', convert: (json) => fromMessages(parseMessagesRequest(json)) },
  '/v1/messages/count_tokens': { name: 'Anthropic count_tokens', convert: (json) => fromMessages(parseCountTokensRequest(json)) },
  '/v1/responses': { name: 'OpenAI Responses', convert: fromResponses },
  '/v1/completions': { name: 'legacy completions', convert: fromCompletions },
}

/** Why a request to `endpoint` has no playground counterpart. */
function notOpenable(method: string, endpoint: string): string {
  if (method !== 'POST') return `A ${method} request has no body to send: the playground sends chat completions.`
  if (endpoint === '/v1/embeddings') return 'Embeddings return vectors, not a reply: the playground sends chat completions.'
  return `${endpoint} is not a generating API: the playground sends chat completions.`
}

export function capturedAsChat(exchange: Pick<Exchange, 'method' | 'endpoint' | 'request' | 'truncated'>): CapturedAsChat {
  const api = exchange.method === 'POST' ? CAPTURED_APIS[exchange.endpoint] : undefined
  if (api === undefined) return { ok: false, reason: notOpenable(exchange.method, exchange.endpoint) }
  const json = parseJsonObject(exchange.request.body)
  if (json === null) {
    return {
      ok: false,
      reason: exchange.truncated !== null ? 'Its body was cut by the capture limit: there is no whole request to send.' : 'Its body is not a JSON object: there is no request to send.',
    }
  }
  const converted = api.convert(json)
  if ('invalid' in converted) return { ok: false, reason: `The gateway refused this ${api.name ?? 'request'} body (${converted.invalid}): it does not convert to chat.` }
  const leftOut = [...converted.leftOut, ...Object.keys(converted.body).filter((key) => !FORM_BODY_FIELDS.has(key))]
  const note = [
    ...(api.name !== null ? [`Converted from ${api.name} (POST ${exchange.endpoint}) to chat completions.`] : []),
    ...(leftOut.length > 0 ? [`Not carried: ${leftOut.join(', ')}.`] : []),
  ].join(' ')
  return { ok: true, body: converted.body, headers: replayedHeaders(exchange.request.headers), convertedFrom: api.name, leftOut, note: note === '' ? null : note }
}
