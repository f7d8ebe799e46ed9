/**
 * Tests listen and connect on loopback only. `host:port` is also how the gateway names a model
 * server's replica (in `X-Mortar-Upstream`, `/health` and errors), so tests compare against it.
 */
export const LOOPBACK = '127.0.0.1'

export const loopbackHost = (port: number): string => `${LOOPBACK}:${port}`

export const loopbackUrl = (port: number, path = ''): string => `http://${loopbackHost(port)}${path}`
