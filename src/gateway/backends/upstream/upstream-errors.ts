import { GatewayError } from '../../errors'

/** The reference's three pre-stream failures of a forwarding deployment, and the mid-stream one. */
export const upstreamFailed = (upstream: string, status: number, detail: string) =>
  new GatewayError({
    status: 502,
    type: 'upstream_error',
    code: 'upstream_error',
    message: `The model server ${upstream} failed (HTTP ${status}): ${detail}`,
    // A server that refused the request as such (4xx) will refuse it again.
    retryable: status >= 500 || status === 429,
  })

export const upstreamUnavailable = (tried: readonly string[], detail: string) =>
  new GatewayError({
    status: 503,
    type: 'upstream_error',
    code: 'upstream_unavailable',
    message: `No model server could be reached (tried ${tried.join(', ')}): ${detail}`,
  })

export const upstreamTimeout = (upstream: string, seconds: number) =>
  new GatewayError({
    status: 504,
    type: 'upstream_error',
    code: 'upstream_timeout',
    message: `The model server ${upstream} sent no response headers within ${seconds} s.`,
  })

/** After the stream started: sent as one event, and the stream closes without `[DONE]`. */
export const upstreamBrokeOff = (upstream: string, detail: string) =>
  new GatewayError({
    status: 502,
    type: 'upstream_error',
    code: 'upstream_error',
    message: `The model server ${upstream} failed mid-reply: ${detail}`,
  })
