/**
 * The error envelope every endpoint returns, the OpenAI one: {error:{message,type,param,code}}.
 * The codes are the reference's plus the few that the pages it links to (auth, overview) imply;
 * docs/api-decisions.md lists them all.
 */

export type ErrorType =
  | 'invalid_request_error'
  | 'authentication_error'
  | 'not_found_error'
  | 'permission_error'
  | 'conflict_error'
  | 'rate_limit_error'
  | 'upstream_error'
  | 'server_error'

export type ErrorCode =
  | 'invalid_json'
  | 'invalid_request'
  | 'context_length_exceeded'
  | 'missing_api_key'
  | 'invalid_api_key'
  | 'expired_api_key'
  | 'revoked_api_key'
  | 'invalid_sign_in_code'
  | 'model_not_found'
  | 'model_not_available'
  | 'request_too_large'
  | 'unknown_route'
  | 'method_not_allowed'
  | 'host_not_allowed'
  | 'origin_not_allowed'
  | 'idempotency_key_conflict'
  | 'insufficient_role'
  | 'key_not_found'
  | 'last_owner'
  | 'key_file_error'
  | 'key_file_busy'
  | 'too_many_subscriptions'
  | 'exchange_not_found'
  | 'upstream_error'
  | 'upstream_unavailable'
  | 'upstream_timeout'
  | 'internal_error'

export interface ErrorEnvelope {
  error: {
    message: string
    type: ErrorType
    param: string | null
    code: ErrorCode | null
  }
}
