import { z } from 'zod'
import type { ErrorCode } from './errors'

/**
 * The error envelope of the Anthropic endpoints (/v1/messages, /v1/messages/count_tokens):
 * `{"type": "error", "error": {"type", "message"}, "request_id"}`. The status stays the one the
 * gateway's error-code table gives (ERROR_CODES in errors.ts); only the envelope's words change.
 */

export const ANTHROPIC_ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'rate_limit_error',
  'api_error',
  'overloaded_error',
] as const
export type AnthropicErrorType = (typeof ANTHROPIC_ERROR_TYPES)[number]

/**
 * Each gateway error code's Anthropic type, once, and complete: a new code must say what an
 * Anthropic client is told. Types follow Anthropic's own status rules (400 invalid request — its
 * type for any other 4xx too —, 401, 403, 404, 413, 429, 500 `api_error`) and a model server that
 * is down or a model that is not deployed reads as `overloaded_error`: retry later.
 */
export const ANTHROPIC_ERROR_TYPE: Readonly<Record<ErrorCode, AnthropicErrorType>> = {
  invalid_json: 'invalid_request_error',
  invalid_request: 'invalid_request_error',
  context_length_exceeded: 'invalid_request_error',
  missing_api_key: 'authentication_error',
  invalid_api_key: 'authentication_error',
  expired_api_key: 'authentication_error',
  revoked_api_key: 'authentication_error',
  invalid_sign_in_code: 'authentication_error',
  model_not_found: 'not_found_error',
  model_not_available: 'overloaded_error',
  request_too_large: 'request_too_large',
  unknown_route: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  host_not_allowed: 'permission_error',
  origin_not_allowed: 'permission_error',
  idempotency_key_conflict: 'invalid_request_error',
  insufficient_role: 'permission_error',
  key_not_found: 'not_found_error',
  last_owner: 'invalid_request_error',
  too_many_subscriptions: 'rate_limit_error',
  key_file_error: 'api_error',
  key_file_busy: 'overloaded_error',
  keys_unavailable: 'overloaded_error',
  exchange_not_found: 'not_found_error',
  capture_unavailable: 'api_error',
  upstream_error: 'api_error',
  upstream_unavailable: 'overloaded_error',
  upstream_timeout: 'api_error',
  upstream_not_supported: 'api_error',
  internal_error: 'api_error',
}

/** The envelope as a client reads it: any type string, since a model server's own /v1/messages may send others. */
export const anthropicErrorEnvelopeSchema = z.object({
  type: z.literal('error'),
  error: z.object({ type: z.string(), message: z.string() }),
  request_id: z.string().nullable().optional(),
})

/** The envelope as the gateway writes it. */
export interface AnthropicErrorEnvelope {
  type: 'error'
  error: { type: AnthropicErrorType; message: string }
  request_id: string | null
}

export function anthropicErrorEnvelope(code: ErrorCode, message: string, requestId: string | null): AnthropicErrorEnvelope {
  return { type: 'error', error: { type: ANTHROPIC_ERROR_TYPE[code], message }, request_id: requestId }
}
