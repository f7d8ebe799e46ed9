import { z } from 'zod'

/**
 * The error envelope every endpoint returns, the OpenAI one: {error:{message,type,param,code}}.
 * The codes are those of the chat completions API plus the few that authentication, keys and a
 * local server imply; docs/api-decisions.md lists them all.
 */

export const ERROR_TYPES = [
  'invalid_request_error',
  'authentication_error',
  'not_found_error',
  'permission_error',
  'conflict_error',
  'rate_limit_error',
  'upstream_error',
  'server_error',
] as const
export type ErrorType = (typeof ERROR_TYPES)[number]

interface ErrorCodeSpec {
  readonly status: number
  readonly type: ErrorType
  /** Whether the same request could succeed later; sent as `x-should-retry`. */
  readonly retryable: boolean
}

/**
 * Each error code's HTTP status, envelope type and retryability, once. A refusal is made from its
 * code (`new GatewayError(code, message)`); only a code whose retryability depends on the case
 * (a model server's own status) overrides it.
 */
export const ERROR_CODES = {
  invalid_json: { status: 400, type: 'invalid_request_error', retryable: false },
  invalid_request: { status: 400, type: 'invalid_request_error', retryable: false },
  context_length_exceeded: { status: 400, type: 'invalid_request_error', retryable: false },
  missing_api_key: { status: 401, type: 'authentication_error', retryable: false },
  invalid_api_key: { status: 401, type: 'authentication_error', retryable: false },
  expired_api_key: { status: 401, type: 'authentication_error', retryable: false },
  revoked_api_key: { status: 401, type: 'authentication_error', retryable: false },
  invalid_sign_in_code: { status: 401, type: 'authentication_error', retryable: false },
  model_not_found: { status: 404, type: 'invalid_request_error', retryable: false },
  model_not_available: { status: 503, type: 'server_error', retryable: false },
  request_too_large: { status: 413, type: 'invalid_request_error', retryable: false },
  unknown_route: { status: 404, type: 'invalid_request_error', retryable: false },
  method_not_allowed: { status: 405, type: 'invalid_request_error', retryable: false },
  host_not_allowed: { status: 403, type: 'invalid_request_error', retryable: false },
  origin_not_allowed: { status: 403, type: 'invalid_request_error', retryable: false },
  idempotency_key_conflict: { status: 409, type: 'conflict_error', retryable: false },
  insufficient_role: { status: 403, type: 'permission_error', retryable: false },
  key_not_found: { status: 404, type: 'not_found_error', retryable: false },
  last_owner: { status: 409, type: 'conflict_error', retryable: false },
  too_many_subscriptions: { status: 429, type: 'rate_limit_error', retryable: false },
  key_file_error: { status: 503, type: 'server_error', retryable: false },
  key_file_busy: { status: 503, type: 'server_error', retryable: true },
  keys_unavailable: { status: 503, type: 'server_error', retryable: true },
  exchange_not_found: { status: 404, type: 'not_found_error', retryable: false },
  capture_unavailable: { status: 503, type: 'server_error', retryable: false },
  upstream_error: { status: 502, type: 'upstream_error', retryable: true },
  upstream_unavailable: { status: 503, type: 'upstream_error', retryable: true },
  upstream_timeout: { status: 504, type: 'upstream_error', retryable: true },
  upstream_not_supported: { status: 501, type: 'upstream_error', retryable: false },
  internal_error: { status: 500, type: 'server_error', retryable: true },
} as const satisfies Record<string, ErrorCodeSpec>

export type ErrorCode = keyof typeof ERROR_CODES

/**
 * The envelope as a client reads it, to parse rather than trust what came back. Its code is any
 * string: a reader also meets envelopes from model servers and gateways whose codes are not these.
 */
export const errorEnvelopeSchema = z.object({
  error: z.object({
    message: z.string(),
    type: z.string().optional(),
    param: z.string().nullable().optional(),
    code: z.string().nullable().optional(),
  }),
})

/** The envelope as the gateway writes it. */
export interface ErrorEnvelope {
  error: {
    message: string
    type: ErrorType
    param: string | null
    code: ErrorCode | null
  }
}
