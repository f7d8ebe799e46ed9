import type { IncomingMessage } from 'node:http'
import type { GatewayError } from '../errors'
import { sseData } from '../sse/frames'

/**
 * How one API writes the gateway's one error type: the body of an error response, and the frame
 * a stream that already started ends with. Every refusal is a GatewayError; only its envelope
 * differs by endpoint (OpenAI's `{error:{…}}`, Anthropic's `{"type":"error","error":{…}}`).
 */
export interface ErrorFormat {
  body(error: GatewayError): unknown
  /** The frames written before a failed stream closes (it then gets no ending of its own). */
  streamError(error: GatewayError): string
}

/** OpenAI's envelope, `{error:{message,type,param,code}}`: every endpoint's unless it names its own. */
export const OPENAI_ERRORS: ErrorFormat = {
  body: (error) => error.toEnvelope(),
  streamError: (error) => sseData(JSON.stringify(error.toEnvelope())),
}

const formats = new WeakMap<IncomingMessage, ErrorFormat>()

/** From now on, errors of this request are answered in `format` (its endpoint's envelope). */
export function answerErrorsAs(req: IncomingMessage, format: ErrorFormat): void {
  if (format !== OPENAI_ERRORS) formats.set(req, format)
}

/** The envelope a request's errors are answered in. */
export function errorFormatOf(req: IncomingMessage): ErrorFormat {
  return formats.get(req) ?? OPENAI_ERRORS
}
