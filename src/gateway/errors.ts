import type { ErrorCode, ErrorEnvelope, ErrorType } from '../shared/api/errors'

/**
 * The one error type of the gateway. Anything that should reach a client as an OpenAI error
 * envelope is thrown as a GatewayError; `http/error-handler.ts` is the one place that maps it.
 */
export class GatewayError extends Error {
  readonly status: number
  readonly type: ErrorType
  readonly code: ErrorCode | null
  readonly param: string | null
  /** False when retrying the same request cannot succeed; sent as `x-should-retry`. */
  readonly retryable: boolean

  constructor(options: {
    status: number
    type: ErrorType
    code: ErrorCode | null
    message: string
    param?: string | null
    retryable?: boolean
  }) {
    super(options.message)
    this.name = 'GatewayError'
    this.status = options.status
    this.type = options.type
    this.code = options.code
    this.param = options.param ?? null
    this.retryable = options.retryable ?? options.status >= 500
  }

  toEnvelope(): ErrorEnvelope {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } }
  }
}

export const invalidRequest = (message: string, param: string | null = null, code: ErrorCode = 'invalid_request') =>
  new GatewayError({ status: 400, type: 'invalid_request_error', code, message, param })

export const modelNotFound = (model: string) =>
  new GatewayError({
    status: 404,
    type: 'invalid_request_error',
    code: 'model_not_found',
    message: `The model \`${model}\` does not exist.`,
    param: 'model',
  })

export const modelNotAvailable = (model: string) =>
  new GatewayError({
    status: 503,
    type: 'server_error',
    code: 'model_not_available',
    message: `The model \`${model}\` is in the catalog but not deployed yet.`,
    param: 'model',
    retryable: false,
  })

export const internalError = () =>
  new GatewayError({
    status: 500,
    type: 'server_error',
    code: 'internal_error',
    message: 'The gateway hit an unexpected error. It has been logged; the request was not completed.',
  })
