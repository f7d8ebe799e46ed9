import type { IncomingMessage } from 'node:http'
import { GatewayError } from '../errors'

export const LOOPBACK_HOSTS = ['localhost', '127.0.0.1', '[::1]'] as const

/**
 * Refuse requests whose Host header is not a name this gateway answers to. A web page can make a
 * browser send requests to 127.0.0.1 under a domain it controls (DNS rebinding); the Host header
 * still carries that domain, so checking it closes the door. Throws a 403 GatewayError.
 */
export function hostAllowList(extraHosts: readonly string[]): (req: IncomingMessage) => void {
  const allowed = new Set([...LOOPBACK_HOSTS, ...extraHosts.map((h) => h.toLowerCase())])
  return (req) => {
    const host = req.headers.host ?? ''
    const name = hostName(host)
    if (name !== undefined && allowed.has(name.toLowerCase())) return
    throw new GatewayError(
      'host_not_allowed',
      `This gateway does not answer to the host ${JSON.stringify(host.slice(0, 100))}. Use 127.0.0.1 or localhost, or add the name with --allow-host.`,
    )
  }
}

/**
 * The name in a Host header, parsed strictly as RFC 9110 has it — `name[:port]` or
 * `[IPv6][:port]`, the port 1–5 digits — or undefined for anything else: `[::1]evil.example`
 * names no host, and must not pass for `[::1]`.
 */
export function hostName(host: string): string | undefined {
  const match = HOST_PATTERN.exec(host)
  return match === null ? undefined : match[1]
}

const HOST_PATTERN = /^(\[[0-9A-Fa-f:.]+\]|[^\s:[\]/@]+)(?::[0-9]{1,5})?$/
