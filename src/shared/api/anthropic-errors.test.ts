import { describe, expect, it } from 'vitest'
import { ANTHROPIC_ERROR_TYPE, anthropicErrorEnvelope } from './anthropic-errors'
import { ERROR_CODES, type ErrorCode } from './errors'

// Anthropic's own rule: the type follows the status (docs.claude.com/en/api/errors).
const TYPE_BY_STATUS: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
}

describe('ANTHROPIC_ERROR_TYPE', () => {
  it('gives every gateway code the type Anthropic uses for its status', () => {
    for (const [code, spec] of Object.entries(ERROR_CODES) as Array<[ErrorCode, (typeof ERROR_CODES)[ErrorCode]]>) {
      const expected = TYPE_BY_STATUS[spec.status]
      if (expected !== undefined) expect([code, ANTHROPIC_ERROR_TYPE[code]]).toEqual([code, expected])
    }
  })
  it('tells a client to come back later when the model server is down, and reports other upstream failures as api_error', () => {
    expect(ANTHROPIC_ERROR_TYPE.upstream_unavailable).toBe('overloaded_error')
    expect(ANTHROPIC_ERROR_TYPE.model_not_available).toBe('overloaded_error')
    expect(ANTHROPIC_ERROR_TYPE.upstream_error).toBe('api_error')
    expect(ANTHROPIC_ERROR_TYPE.upstream_timeout).toBe('api_error')
  })
  it('writes the envelope', () => {
    expect(anthropicErrorEnvelope('model_not_found', 'No such model.', 'msg_1')).toEqual({
      type: 'error',
      error: { type: 'not_found_error', message: 'No such model.' },
      request_id: 'msg_1',
    })
  })
})
