import type { ServerResponse } from 'node:http'
import { setResponseHeader } from './response-head'

/**
 * No page may frame the gateway's responses — the UI above all, which a framing page could
 * overlay to trick clicks (clickjacking). `frame-ancestors 'none'` is the modern rule; browsers
 * honour it only from a header, not from the page's meta CSP. `X-Frame-Options: DENY` says the
 * same to older ones. A CSP header with only `frame-ancestors` restricts nothing else: the page's
 * own policy (its meta tag) still applies, and policies intersect.
 */
export const FRAMING_HEADERS = [
  ['Content-Security-Policy', "frame-ancestors 'none'"],
  ['X-Frame-Options', 'DENY'],
] as const

export function forbidFraming(res: ServerResponse): void {
  for (const [name, value] of FRAMING_HEADERS) setResponseHeader(res, name, value)
}
