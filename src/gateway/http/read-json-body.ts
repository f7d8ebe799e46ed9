import type { IncomingMessage } from 'node:http'
import { GatewayError, invalidRequest } from '../errors'

export const DEFAULT_BODY_LIMIT_BYTES = 8 * 1024 * 1024

const tooLarge = (limit: number) =>
  new GatewayError({
    status: 413,
    type: 'invalid_request_error',
    code: 'request_too_large',
    message: `The request body is larger than the gateway's limit of ${limit} bytes.`,
  })

/**
 * Read and parse a JSON body, refusing more than `limit` bytes before buffering them. The
 * Content-Type is not checked: every request needs an Authorization header, which no page can
 * send cross-origin without a CORS preflight, so a lenient parser opens no CSRF door, and clients
 * that forget the header (curl -d) still work.
 */
export async function readJsonBody(req: IncomingMessage, limit: number): Promise<{ value: unknown; raw: Buffer }> {
  const declared = Number(req.headers['content-length'])
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit)
  const raw = await readRawBody(req, limit)
  const text = raw.toString('utf8')
  if (text.trim() === '') throw invalidRequest('The request body is empty; send a JSON object.', null, 'invalid_json')
  try {
    return { value: JSON.parse(text), raw }
  } catch (error) {
    throw invalidRequest(
      `The request body is not valid JSON: ${(error as Error).message}`,
      null,
      'invalid_json',
    )
  }
}

/**
 * The body's bytes. Plain `data`/`end` listeners rather than `for await`: the body usually comes in
 * one chunk, and the async iterator's promises and objects were a measurable part of each
 * request's cost (docs/benchmark.md). Rejects with ECONNRESET when the client leaves first.
 */
function readRawBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const settle = (outcome: () => void) => {
      req.off('data', onData)
      req.off('end', onEnd)
      req.off('error', onError)
      req.off('close', onClose)
      outcome()
    }
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) {
        // Stop reading: the client's writes then back up instead of racing the 413 (which closes
        // the connection) into a reset that could lose it.
        settle(() => reject(tooLarge(limit)))
        req.pause()
        return
      }
      chunks.push(chunk)
    }
    const onEnd = () => settle(() => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)))
    const onError = (error: Error) => settle(() => reject(error))
    const onClose = () => settle(() => reject(Object.assign(new Error('the client left while sending its body'), { code: 'ECONNRESET' })))
    req.on('data', onData)
    req.on('end', onEnd)
    req.on('error', onError)
    req.on('close', onClose)
  })
}
