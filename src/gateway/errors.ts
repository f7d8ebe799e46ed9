import { ERROR_CODES, type ErrorCode, type ErrorEnvelope, type ErrorType } from '../shared/api/errors'

/**
 * The one error type of the gateway. Anything that should reach a client as an OpenAI error
 * envelope is thrown as a GatewayError, made from its code: the status, type and retryability
 * come from the code's row in `ERROR_CODES`. `http/error-handler.ts` is the one place that maps it.
 */
export class GatewayError extends Error {
  readonly status: number
  readonly type: ErrorType
  readonly code: ErrorCode
  readonly param: string | null
  /** False when retrying the same request cannot succeed; sent as `x-should-retry`. */
  readonly retryable: boolean

  constructor(code: ErrorCode, message: string, options: { param?: string | null; retryable?: boolean } = {}) {
    super(message)
    const spec = ERROR_CODES[code]
    this.name = 'GatewayError'
    this.status = spec.status
    this.type = spec.type
    this.code = code
    this.param = options.param ?? null
    this.retryable = options.retryable ?? spec.retryable
  }

  toEnvelope(): ErrorEnvelope {
    return { error: { message: this.message, type: this.type, param: this.param, code: this.code } }
  }
}

export const invalidRequest = (
  message: string,
  param: string | null = null,
  code: 'invalid_request' | 'invalid_json' | 'context_length_exceeded' = 'invalid_request',
) => new GatewayError(code, message, { param })

export const modelNotFound = (model: string) =>
  new GatewayError('model_not_found', `The model \`${model}\` does not exist.`, { param: 'model' })

export const modelNotAvailable = (model: string) =>
  new GatewayError('model_not_available', `The model \`${model}\` is in the catalog but not deployed yet.`, { param: 'model' })

export const internalError = () =>
  new GatewayError('internal_error', 'The gateway hit an unexpected error. It has been logged; the request was not completed.')
