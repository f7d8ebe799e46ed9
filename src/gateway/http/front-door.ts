import type { IncomingMessage, ServerResponse } from 'node:http'
import { authenticator } from '../auth/authenticate'
import type { KeyStore, Principal } from '../auth/key-store'
import { recorderOf } from '../capture/exchange-recorder'
import type { TrafficCapture } from '../capture/traffic-capture'
import { corsPolicy } from './cors'
import { hostAllowList } from './host-allow-list'
import { forbidFraming } from './framing'
import { assignRequestId } from './request-identity'

/** What the front door decided: CORS answered a preflight itself, or the request goes on (with its caller under `/v1`). */
export type Admission = { answered: true } | { answered: false; principal: Principal | undefined }

const ANSWERED: Admission = { answered: true }
const PUBLIC: Admission = { answered: false, principal: undefined }

/**
 * The checks every request passes, built once and called by both ways in — Express's first
 * middleware and the hot path for POST /v1/chat/completions — so they cannot drift apart:
 *
 * 1. traffic capture begins (so refusals are captured too);
 * 2. `X-Request-Id` is set (the client's, if printable, or a new one);
 * 3. the `Host` must be loopback or an `--allow-host` name (DNS rebinding);
 * 4. CORS: a foreign `Origin` is refused, a preflight answered here;
 * 5. under `/v1`, the API key (`Authorization: Bearer mk_live_…`), recorded with the capture.
 *
 * Each refusal is a thrown GatewayError, which the caller hands to `sendError`.
 */
export function frontDoor(options: {
  keys: KeyStore
  capture: TrafficCapture
  allowedHosts: readonly string[]
  allowedOrigins: readonly string[]
}): (req: IncomingMessage, res: ServerResponse) => Admission {
  const { capture } = options
  const checkHost = hostAllowList(options.allowedHosts)
  const applyCors = corsPolicy(options.allowedOrigins)
  const checkKey = authenticator(options.keys)
  return (req, res) => {
    capture.begin(req, res)
    assignRequestId(req, res)
    forbidFraming(res)
    checkHost(req)
    if (applyCors(req, res) === 'answered') return ANSWERED
    if (!isUnderV1(req.url)) return PUBLIC
    const checked = checkKey(req)
    const recorder = recorderOf(req)
    if (!checked.ok) {
      // An expired or revoked key is still named in the capture; an unknown one cannot be.
      if (recorder !== undefined) recorder.refusedKey = checked.key
      throw checked.error
    }
    recorder?.identified(checked.principal)
    return { answered: false, principal: checked.principal }
  }
}

/**
 * Whether a request URL is under `/v1` as Express mounts a router there: the path `/v1` or below
 * it, in any case (Express's routing is case-insensitive), with or without a query. An
 * absolute-form target (`http://host/v1/…`) is judged by its path, as Express does.
 */
export function isUnderV1(url: string | undefined): boolean {
  if (url === undefined) return false
  if (url.charCodeAt(0) !== 0x2f) return URL.canParse(url) && isUnderV1(new URL(url).pathname)
  if (url.length < 3 || (url.charCodeAt(1) | 0x20) !== 0x76 || url.charCodeAt(2) !== 0x31) return false
  if (url.length === 3) return true
  const next = url.charCodeAt(3)
  return next === 0x2f || next === 0x3f
}
