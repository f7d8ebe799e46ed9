import { Agent as HttpAgent, request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http'
import { Http1Reply, requestHead, sendHttp1, type Http1Target, type ReplyError, type SentCallbacks, type SentRequest } from './http1-client'
import type { Socket } from 'node:net'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'
import { urlToHttpOptions } from 'node:url'
import type { StopSignal } from '../../generation/stop-signal'
import type { ByteChunks } from '../../http/json-chunks'
import { readStream } from '../../http/read-stream'
import type { Replica, ReplicaPool } from './replica-pool'
import { upstreamTimeout } from './upstream-errors'
import { redactSecrets } from '../../redact-secrets'
import { isRecord } from '../../../shared/narrow'

/**
 * A model server's reply once its head is in: read by the gateway's own HTTP/1.1 client from a
 * plain-HTTP server (Node's client costs about 0.1 ms per request on loopback: its agent, request
 * object and parser), by Node's HTTPS client from a TLS one.
 */
export type UpstreamReply = Http1Reply | IncomingMessage

/** A reply's Content-Type: from the fields the gateway's own client gathered, or Node's headers. */
export function replyContentType(res: UpstreamReply): string | undefined {
  return res instanceof Http1Reply ? res.fields.contentType : res.headers['content-type']
}

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

/**
 * A pooled connection idle this long is closed by the gateway: before the model server's own
 * keep-alive timeout (5 s in Node, uvicorn — vLLM, SGLang — and llama.cpp's server) closes it,
 * so a request is rarely sent on a connection the server is closing. Node's agent would honour
 * a server's `Keep-Alive: timeout=` hint only when it has a timeout of its own, and a socket
 * timeout on the agent would also run during a reply; this one applies to idle sockets only.
 */
export const POOLED_IDLE_MS = 4_000

/** The agent's hooks as Node calls them (its types say `void`; Node reads the boolean). */
interface PoolHooks {
  keepSocketAlive(socket: Socket): boolean
  reuseSocket(socket: Socket, req: ClientRequest): void
}

function idleLimited<A extends HttpAgent>(agent: A): A {
  // Both are the agent's documented hooks: keepSocketAlive as a socket returns to the pool,
  // reuseSocket as it leaves it; the agent destroys a pooled socket that times out.
  const hooks = agent as unknown as PoolHooks
  const keep = hooks.keepSocketAlive.bind(agent)
  const reuse = hooks.reuseSocket.bind(agent)
  hooks.keepSocketAlive = (socket) => {
    const kept = keep(socket)
    if (kept && socket.timeout === 0) socket.setTimeout(POOLED_IDLE_MS)
    return kept
  }
  hooks.reuseSocket = (socket, req) => {
    reuse(socket, req)
    socket.setTimeout(0)
  }
  return agent
}

/**
 * A replica that gave no answer, as one place decides for every endpoint: no headers in time is
 * the request's end (504, thrown); refused or broken before any answer, the request never ran
 * there, so it is marked down and its detail returned for the next replica to be tried.
 */
export function noAnswer(pool: ReplicaPool, replica: Replica, error: UpstreamConnectError): string {
  if (error.kind === 'timeout') {
    const timeout = upstreamTimeout(replica.id, replica.timeoutMs / 1000)
    pool.noteError(replica, timeout.message)
    throw timeout
  }
  pool.markDown(replica, `unreachable (${error.message})`)
  return error.message
}

// Kept-alive connections to model servers: a new TCP handshake per request is pure added latency.
const httpAgent = idleLimited(new HttpAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }))
const httpsAgent = idleLimited(new HttpsAgent({ keepAlive: true, maxSockets: Infinity, scheduling: 'lifo' }))

const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNRESET', 'EPIPE'])

/**
 * POST a JSON body (its text, or its bytes) to a replica and resolve with its response once the status and headers are in.
 * Rejects with UpstreamConnectError: `timeout` when no headers came within the replica's timeout,
 * `aborted` when the signal fired (the request is destroyed, so the server sees the hang-up),
 * `unreachable` when no connection could be made or it broke before any response.
 */
export function postToReplica(
  replica: Replica,
  path: string,
  body: Buffer | ByteChunks,
  headers: Record<string, string>,
  signal: StopSignal,
): Promise<UpstreamReply> {
  // Bytes, not a string: their length is the Content-Length, and a retry sends the same bytes.
  return attempt(replica, path, body, headers, signal, 'pooled')
}

/**
 * `pooled`: a kept-alive connection if one is free. `fresh`: a new connection (the gateway's own
 * client pools it after the reply; Node's, for https, closes it) — for the retry after a stale
 * pooled one, since the next pooled connection may be just as stale (a server closes the
 * connections idle past its keep-alive timeout all alike, and a busy event loop may not have read
 * their FINs yet).
 */
type Connection = 'pooled' | 'fresh'

function attempt(
  replica: Replica,
  path: string,
  body: Buffer | ByteChunks,
  headers: Record<string, string>,
  signal: StopSignal,
  connection: Connection,
): Promise<UpstreamReply> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(new UpstreamConnectError('aborted', 'aborted before sending'))
    const target = targetOf(replica, path)
    const basicAuth = target.http1?.basicAuth
    const fields = {
      'content-type': 'application/json',
      'content-length': String(body.length),
      ...(basicAuth !== undefined ? { authorization: basicAuth } : {}),
      ...(replica.apiKey !== undefined ? { authorization: `Bearer ${replica.apiKey}` } : {}),
      ...headers,
    }
    let settled = false
    const finish = (fn: () => void) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      unsubscribe()
      fn()
    }
    const callbacks: SentCallbacks<UpstreamReply> = {
      response: (res) => finish(() => resolve(res)),
      error: (error) => {
        if (settled) return
        // A kept-alive socket the server had already closed: the request never reached it, so
        // sending it once more, on a new connection, is safe — unless any of a reply came.
        if (connection === 'pooled' && req.reusedSocket && error.code === 'ECONNRESET' && (error as ReplyError).replyStarted !== true) {
          finish(() => resolve(attempt(replica, path, body, headers, signal, 'fresh')))
          return
        }
        // Every error before a response means the request got no answer; the known network codes
        // are named, anything else (TLS, protocol) is quoted as it came.
        const detail = UNREACHABLE.has(error.code ?? '') ? (error.code ?? '') : error.message
        finish(() => reject(new UpstreamConnectError('unreachable', detail)))
      },
    }
    const req =
      target.http1 !== undefined
        ? sendHttp1(target.http1, requestHead('POST', target.http1, fields), body, connection, POOLED_IDLE_MS, callbacks)
        : sendWithNode(target.options, fields, body, connection, callbacks)
    const timer = setTimeout(() => {
      finish(() => reject(new UpstreamConnectError('timeout', 'no response headers in time')))
      req.destroy()
    }, replica.timeoutMs)
    const unsubscribe = signal.onAbort(() => {
      finish(() => reject(new UpstreamConnectError('aborted', 'aborted')))
      req.destroy()
    })
  })
}

/** The request by Node's HTTPS client (a TLS model server), on its kept-alive agent or a connection of its own. */
function sendWithNode(
  options: RequestOptions,
  headers: Record<string, string>,
  body: Buffer | ByteChunks,
  connection: Connection,
  callbacks: SentCallbacks<UpstreamReply>,
): SentRequest {
  const req = httpsRequest({ ...options, ...(connection === 'fresh' ? { agent: false } : {}), method: 'POST', headers })
  req.on('response', callbacks.response)
  req.on('error', callbacks.error)
  if (Buffer.isBuffer(body)) req.end(body)
  else {
    // The pieces leave together (one writev with the headers), none of them copied.
    req.cork()
    for (const chunk of body.chunks) req.write(chunk)
    req.end()
  }
  return req
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
  /** Set for a plain-HTTP server: where the gateway's own client sends. */
  http1: Http1Target | undefined
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
    const options = { ...urlToHttpOptions(url), agent: secure ? httpsAgent : httpAgent }
    const http1 = secure
      ? undefined
      : {
          hostname: options.hostname ?? 'localhost',
          port: Number(url.port || 80),
          host: url.host,
          path: `${url.pathname}${url.search}`,
          // Credentials in the URL are sent as Basic auth (unless a key is), as Node's client sends them.
          ...(options.auth !== undefined && options.auth !== null ? { basicAuth: `Basic ${Buffer.from(options.auth).toString('base64')}` } : {}),
        }
    target = { secure, options, http1 }
    byPath.set(path, target)
  }
  return target
}

/** Read a response body in full, up to `limit` bytes (the rest is cut: the connection is closed). */
export async function readBody(res: UpstreamReply, limit: number): Promise<string> {
  return (await readBodyBytes(res, limit)).toString('utf8')
}

/** `readBody`'s bytes, undecoded. */
export async function readBodyBytes(res: UpstreamReply, limit: number): Promise<Buffer> {
  const whole = res instanceof Http1Reply ? res.takeWhole(limit) : undefined
  if (whole !== undefined) return whole
  const { bytes, overflowed } = await readStream(res, limit)
  if (overflowed) {
    res.on('error', () => undefined) // destroying it may report an error nobody waits for
    res.destroy()
  }
  return bytes
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
    const parsed: unknown = JSON.parse(body)
    if (isRecord(parsed)) {
      const { error, message, detail } = parsed
      if (isRecord(error) && typeof error.message === 'string') return error.message
      if (typeof error === 'string') return error
      if (typeof message === 'string') return message
      if (typeof detail === 'string') return detail
    }
  } catch {
    // not JSON: quote it as text
  }
  return body.slice(0, 300).trim() || '(empty body)'
}
