import { GatewayError } from '../../errors'

/**
 * The three failures of a forwarding deployment before its stream starts (502 upstream_error,
 * 503 upstream_unavailable, 504 upstream_timeout), and the mid-stream one.
 */
export const upstreamFailed = (upstream: string, status: number, detail: string) =>
  new GatewayError('upstream_error', `The model server ${upstream} failed (HTTP ${status}): ${detail}`, {
    // A server that refused the request as such (4xx) will refuse it again.
    retryable: status >= 500 || status === 429,
  })

export const upstreamUnavailable = (tried: readonly string[], detail: string) =>
  new GatewayError('upstream_unavailable', `No model server could be reached (tried ${tried.join(', ')}): ${detail}`)

export const upstreamTimeout = (upstream: string, seconds: number) =>
  new GatewayError('upstream_timeout', `The model server ${upstream} sent no response headers within ${seconds} s.`)

/** The server has none of the paths this endpoint can be forwarded to (501): a model server must offer it. */
export const upstreamLacks = (upstream: string, paths: readonly string[]) =>
  new GatewayError(
    'upstream_not_supported',
    paths.length === 0
      ? `The model server ${upstream} cannot serve this endpoint: Mortar does not forward it to model servers.`
      : `The model server ${upstream} does not offer ${paths.map((path) => 'POST ' + path).join(' or ')} (it answered 404 or 405), which this endpoint needs.`,
  )

/** After the stream started: sent as one event, and the stream closes without `[DONE]`. */
export const upstreamBrokeOff = (upstream: string, detail: string) =>
  new GatewayError('upstream_error', `The model server ${upstream} failed mid-reply: ${detail}`)

/** A model server that went silent mid-reply for longer than its replica's idle timeout. */
export const upstreamWentSilent = (replica: { id: string; idleTimeoutMs: number }) =>
  upstreamBrokeOff(replica.id, `it sent nothing for ${replica.idleTimeoutMs / 1000} s (the idle timeout)`)

/**
 * Whether an error answer says the server has no such endpoint: a 405, or a 404 that is not about
 * the model (Ollama answers an unknown model with 404 too, and that is no missing endpoint).
 */
export function lacksPath(status: number, body: string): boolean {
  return status === 405 || (status === 404 && !/model/i.test(body))
}
