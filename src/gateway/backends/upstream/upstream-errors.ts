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

/** After the stream started: sent as one event, and the stream closes without `[DONE]`. */
export const upstreamBrokeOff = (upstream: string, detail: string) =>
  new GatewayError('upstream_error', `The model server ${upstream} failed mid-reply: ${detail}`)
