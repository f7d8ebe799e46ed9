import { Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { urlToHttpOptions } from 'node:url'
import type { StopSignal } from '../../generation/stop-signal'
import { readStream } from '../../http/read-stream'
import type { Replica } from './replica-pool'
import { redactSecrets } from '../../redact-secrets'

/** Why no response came: each maps to one status (502 upstream_error, 503 upstream_unavailable, 504 upstream_timeout). */
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
  signal: StopSignal,
): Promise<IncomingMessage> {
  return attempt(replica, path, body, headers, signal, true)
}

function attempt(
  replica: Replica,
  path: string,
  body: string,
  headers: Record<string, string>,
  signal: StopSignal,
  mayRetryStaleSocket: boolean,
): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new UpstreamConnectError('aborted', 'aborted before sending'))
    const target = targetOf(replica, path)
    const req = (target.secure ? httpsRequest : httpRequest)({
      ...target.options,
      method: 'POST',
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
      unsubscribe()
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
    const unsubscribe = signal.onAbort(onAbort)
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

/**
 * GET a path of a replica (a health check: `/models`) and resolve with the status once the
 * headers are in; the body is read and dropped. Rejects with UpstreamConnectError when the
 * replica cannot be reached (`unreachable`) or does not answer within `timeoutMs` (`timeout`).
 */
export function getFromReplica(replica: Replica, path: string, timeoutMs: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const target = targetOf(replica, path)
    const req = (target.secure ? httpsRequest : httpRequest)({
      ...target.options,
      method: 'GET',
      headers: replica.apiKey !== undefined ? { authorization: `Bearer ${replica.apiKey}` } : {},
    })
    const timer = setTimeout(() => {
      reject(new UpstreamConnectError('timeout', `no answer within ${timeoutMs} ms`))
      req.destroy()
    }, timeoutMs)
    req.on('response', (res) => {
      clearTimeout(timer)
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', (error: NodeJS.ErrnoException) => {
      clearTimeout(timer)
      reject(new UpstreamConnectError('unreachable', UNREACHABLE.has(error.code ?? '') ? (error.code ?? '') : error.message))
    })
    req.end()
  })
}

interface Target {
  secure: boolean
  options: RequestOptions
}

// Where each replica's endpoints are, worked out once rather than parsing a URL per request.
const targets = new WeakMap<Replica, Map<string, Target>>()

function targetOf(replica: Replica, path: string): Target {
  let byPath = targets.get(replica)
  if (byPath === undefined) targets.set(replica, (byPath = new Map()))
  let target = byPath.get(path)
  if (target === undefined) {
    const url = new URL(replica.baseUrl.pathname.replace(/\/$/, '') + path, replica.baseUrl)
    const secure = url.protocol === 'https:'
    target = { secure, options: { ...urlToHttpOptions(url), agent: secure ? httpsAgent : httpAgent } }
    byPath.set(path, target)
  }
  return target
}

/** Read a response body in full, up to `limit` bytes (the rest is cut: the connection is closed). */
export async function readBody(res: IncomingMessage, limit: number): Promise<string> {
  const { bytes, overflowed } = await readStream(res, limit)
  if (overflowed) {
    res.on('error', () => undefined) // destroying it may report an error nobody waits for
    res.destroy()
  }
  return bytes.toString('utf8')
}

/**
 * The `error.message` of an OpenAI-style error body, or the body's start — redacted of anything
 * that looks like a credential, since it is passed on to clients.
 */
export function errorDetail(body: string): string {
  return redactSecrets(errorText(body))
}

function errorText(body: string): string {
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
