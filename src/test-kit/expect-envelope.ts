import { expect } from 'vitest'
import { z } from 'zod'
import { ANTHROPIC_ERROR_TYPES, type AnthropicErrorType } from '../shared/api/anthropic-errors'

/**
 * The OpenAI error envelope exactly as the gateway writes it: `{"error": {message, type, param,
 * code}}`, those four keys and no others, a message that says something. Stricter than the
 * client-side `errorEnvelopeSchema`, which must also read other servers' envelopes.
 */
const gatewayEnvelopeSchema = z.strictObject({
  error: z.strictObject({
    message: z.string().min(1),
    type: z.string(),
    param: z.string().nullable(),
    code: z.string().nullable(),
  }),
})

export type EnvelopeError = z.output<typeof gatewayEnvelopeSchema>['error']

/** What a test knows about an error; a field left out is not checked. */
export interface ExpectedError {
  type?: string
  code?: string | null
  param?: string | null
  /** text the message contains, or a pattern it matches */
  message?: string | RegExp
}

export interface ExpectedRefusal extends ExpectedError {
  status: number
  /** the `x-should-retry` header the SDKs obey: false means "do not retry" */
  retry?: boolean
}

/**
 * A refusal as a client receives it: the status, a JSON body that is the gateway's envelope, an
 * `X-Request-Id` (the SDKs' request id) and whatever of type, code, param, message and
 * retryability the test names. Reads the body; returns the error for further checks.
 */
export async function expectEnvelope(response: Response, expected: ExpectedRefusal): Promise<EnvelopeError> {
  const text = await response.text()
  expect(response.status, text).toBe(expected.status)
  expect(response.headers.get('content-type')).toMatch(/^application\/json/)
  expect(response.headers.get('x-request-id')).toBeTruthy()
  if (expected.retry !== undefined) expect(response.headers.get('x-should-retry')).toBe(String(expected.retry))
  const { status: _status, retry: _retry, ...fields } = expected
  return expectErrorPayload(JSON.parse(text), fields)
}

/**
 * An error as a stream event's payload (after the headers, an error can only be an event) or any
 * parsed envelope: the gateway's envelope, with the fields the test names.
 */
export function expectErrorPayload(payload: unknown, expected: ExpectedError = {}): EnvelopeError {
  const parsed = gatewayEnvelopeSchema.safeParse(payload)
  expect(parsed.success, `not the gateway's error envelope: ${JSON.stringify(payload)}`).toBe(true)
  if (!parsed.success) throw parsed.error
  const { error } = parsed.data
  const { message, ...fields } = expected
  expect(error).toMatchObject(fields)
  if (typeof message === 'string') expect(error.message).toContain(message)
  else if (message !== undefined) expect(error.message).toMatch(message)
  return error
}

/**
 * Anthropic's error envelope exactly as the gateway writes it for /v1/messages and its
 * count_tokens: `{"type": "error", "error": {type, message}, "request_id"}`, those keys and no
 * others, one of Anthropic's error types, a message that says something.
 */
const gatewayAnthropicEnvelopeSchema = z.strictObject({
  type: z.literal('error'),
  error: z.strictObject({ type: z.enum(ANTHROPIC_ERROR_TYPES), message: z.string().min(1) }),
  request_id: z.string().nullable(),
})

export type AnthropicEnvelopeError = z.output<typeof gatewayAnthropicEnvelopeSchema>['error']

/** An Anthropic endpoint's error body or stream error event: its envelope, with the type and message the test names. */
export function expectAnthropicErrorPayload(payload: unknown, expected: { type?: AnthropicErrorType; message?: string | RegExp } = {}): AnthropicEnvelopeError {
  const parsed = gatewayAnthropicEnvelopeSchema.safeParse(payload)
  expect(parsed.success, `not the gateway's Anthropic error envelope: ${JSON.stringify(payload)}`).toBe(true)
  if (!parsed.success) throw parsed.error
  const { error } = parsed.data
  if (expected.type !== undefined) expect(error.type).toBe(expected.type)
  if (typeof expected.message === 'string') expect(error.message).toContain(expected.message)
  else if (expected.message !== undefined) expect(error.message).toMatch(expected.message)
  return error
}
