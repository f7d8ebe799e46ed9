import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import type { Replica } from './replica-pool'

/** Why no response came: each maps to one of the reference's statuses. */
export class UpstreamConnectError extends Error {
  override name = 'UpstreamConnectError'
  constructor(
    readonly kind: 'unreachable' | 'timeout' | 'aborted',
    message: string,
  ) {
    super(message)
  }
}

// Kept-alive connections to model servers: a new TCP handshake per request is pure added latency.
const httpAgent = new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' })
const httpsAgent = new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' })

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNRESET', 'EPIPE'])

/**
 * POST a JSON body to a replica and resolve with its response once the status and headers are in.
 * Rejects with UpstreamConnectError: `timeout` when no headers came within the replica's timeout,
 * `aborted` when the signal fired (the request is destroyed, so the server sees the hang-up),
 * `unreachable` when no connection could be made or it broke before any response.
 */
export function postToReplica(
  replica: Replica,
  path: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<IncomingMessage> {
  return attempt(replica, path, body, headers, signal, true)
}

function attempt(
  replica: Replica,
  path: string,
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
  mayRetryStaleSocket: boolean,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new UpstreamConnectError('aborted', 'aborted before sending'))
    const url = new URL(replica.baseUrl.pathname.replace(/\/$/, '') + path, replica.baseUrl)
    const secure = url.protocol === 'https:'
    const req = (secure ? httpsRequest : httpRequest)(url, {
      method: 'POST',
      agent: secure ? httpsAgent : httpAgent,
      headers: {
        'content-type': 'application/json',
        'content-length': String(Buffer.byteLength(body)),
        ...(replica.apiKey !== undefined ? { authorization: `Bearer ${replica.apiKey}` } : {}),
        ...headers,
      },
    })
    let settled = false
    const finish = (fn: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      signal.removeEventListener('abort', onAbort)
      fn()
    }
    const timer = setTimeout(() => {
      finish(() => reject(new UpstreamConnectError('timeout', 'no response headers in time')))
      req.destroy()
    }, replica.timeoutMs)
    const onAbort = () => {
      finish(() => reject(new UpstreamConnectError('aborted', 'aborted')))
      req.destroy()
    }
    signal.addEventListener('abort', onAbort, { once: true })
    req.on('response', (res) => finish(() => resolve(res)))
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (settled) return
      // A kept-alive socket the server had already closed: the request never reached it, so
      // sending it once more on a fresh connection is safe.
      if (mayRetryStaleSocket && req.reusedSocket && error.code === 'ECONNRESET') {
        finish(() => resolve(attempt(replica, path, body, headers, signal, false)))
        return
      }
      // Every error before a response means the request got no answer; the known network codes
      // are named, anything else (TLS, protocol) is quoted as it came.
      const detail = UNREACHABLE.has(error.code ?? '') ? (error.code ?? '') : error.message
      finish(() => reject(new UpstreamConnectError('unreachable', detail)))
    })
    req.end(body)
  })
}

/** Read a (small) response body in full, bounded, e.g. to quote a model server's error. */
export async function readBody(res: IncomingMessage, limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of res as AsyncIterable<Buffer>) {
    size += chunk.length
    if (size > limit) {
      res.destroy()
      break
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

/** The `error.message` of an OpenAI-style error body, or the body's start. */
export function errorDetail(body: string): string {
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown; detail?: unknown }
    if (typeof parsed.error === 'object' && typeof parsed.error?.message === 'string') return parsed.error.message
    if (typeof parsed.error === 'string') return parsed.error
    if (typeof parsed.message === 'string') return parsed.message
    if (typeof parsed.detail === 'string') return parsed.detail
  } catch {
    // not JSON: quote it as text
  }
  return body.slice(0, 300).trim() || '(empty body)'
}
