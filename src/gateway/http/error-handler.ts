import type { IncomingMessage, ServerResponse } from 'node:http'
import type { ErrorRequestHandler } from 'express'
import { MortarHeader } from '../../shared/api/headers'
import { recorderOf } from '../capture/exchange-recorder'
import { GatewayError, internalError } from '../errors'
import { errorFormatOf } from './error-format'
import { sendJson } from './send-json'
import { errnoCode } from '../errno-code'
import { closeAfterBody } from './close-after-body'
import { responseHeader, setResponseHeader } from './response-head'

/**
 * The one place where errors become responses. A GatewayError becomes its endpoint's envelope
 * (OpenAI's unless the endpoint named its own, http/error-format.ts) with its
 * status and `x-should-retry`; anything else is logged (never with request headers, which hold
 * keys) and becomes a 500 without internals. Once an SSE stream has started, an error can only be
 * one more event, and the stream closes without `[DONE]`.
 */
export function sendError(error: unknown, req: IncomingMessage, res: ServerResponse): void {
  const gatewayError = error instanceof GatewayError ? error : unexpected(error, req.method ?? '', pathOf(req.url))
  if (res.destroyed) return
  const format = errorFormatOf(req)
  if (res.headersSent) {
    if (String(responseHeader(res, 'content-type') ?? '').startsWith('text/event-stream') && !res.writableEnded) {
      res.end(format.streamError(gatewayError))
    } else {
      res.destroy()
    }
    return
  }
  // Capture keeps the refusal in the gateway's own terms, whatever envelope the endpoint speaks
  // (an Anthropic envelope has no `code`): what the client list and the record say comes from it.
  recorderOf(req)?.refused(gatewayError)
  setResponseHeader(res, MortarHeader.shouldRetry, String(gatewayError.retryable))
  // The rest of an oversized body is not parsed, so this connection cannot carry another request.
  if (gatewayError.status === 413) {
    setResponseHeader(res, 'Connection', 'close')
    closeAfterBody(req)
  }
  sendJson(res, gatewayError.status, format.body(gatewayError))
}

/** `sendError` as Express's error middleware, for every route mounted there. */
export const errorHandler: ErrorRequestHandler = (error: unknown, req, res, _next) => sendError(error, req, res)

function unexpected(error: unknown, method: string, path: string): GatewayError {
  // A client that hangs up while its body is being read is not a gateway fault.
  if (errnoCode(error) === 'ECONNRESET') return internalError()
  process.stderr.write(`mortar: ${method} ${path} failed: ${error instanceof Error ? error.stack : String(error)}\n`)
  return internalError()
}

/** The URL's path, without the query (which is not ours to log). */
function pathOf(url: string | undefined): string {
  const path = url ?? ''
  const query = path.indexOf('?')
  return (query === -1 ? path : path.slice(0, query)).slice(0, 200)
}
