// Preloaded (`node --import tsx --import ./loopback-guard.ts …`) into the third-party contender (Portkey's
// gateway), whose server would otherwise listen on every interface and whose code knows many
// provider hosts. It makes sure the benchmark stays on this machine:
//   - a server listening without a host (or on 0.0.0.0 / ::) listens on 127.0.0.1 instead;
//   - an outgoing connection or DNS lookup to anything but loopback throws.
import dns from 'node:dns'
import net from 'node:net'

type Host = string | null | undefined

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])
const isLoopback = (host: Host): boolean =>
  host === undefined || host === null || host === '' || LOOPBACK_NAMES.has(String(host).toLowerCase()) || /^127\./.test(String(host))

function refuse(what: string, host: Host): NodeJS.ErrnoException {
  const error: NodeJS.ErrnoException = new Error(`loopback-guard: refused ${what} to ${host} (the benchmark stays on loopback)`)
  error.code = 'ECONNREFUSED'
  process.stderr.write(error.message + '\n')
  return error
}

// Node's overloads of listen, connect and lookup, seen as what they are at run time: functions of
// any arguments, whose first one (an options object, a port, a host name) decides.
type Variadic = (this: unknown, ...args: unknown[]) => unknown
type Options = { path?: string; host?: string }
const isOptions = (value: unknown): value is Options => value !== null && typeof value === 'object' && !Array.isArray(value)
const isPort = (value: unknown): boolean => typeof value === 'number' || (typeof value === 'string' && /^\d+$/.test(value))

const server = net.Server.prototype as unknown as { listen: Variadic }
const listen = server.listen
server.listen = function (...args) {
  const first = args[0]
  if (isOptions(first)) {
    if (first.path === undefined && (first.host === undefined || first.host === '0.0.0.0' || first.host === '::')) {
      args[0] = { ...first, host: '127.0.0.1' }
    } else if (first.path === undefined && !isLoopback(first.host)) {
      throw refuse('listening', first.host)
    }
  } else if (isPort(first)) {
    const host = args[1]
    if (typeof host !== 'string' || host === '0.0.0.0' || host === '::') {
      args.splice(1, typeof host === 'string' ? 1 : 0, '127.0.0.1')
    } else if (!isLoopback(host)) {
      throw refuse('listening', host)
    }
  }
  return listen.apply(this, args)
}

const socket = net.Socket.prototype as unknown as { connect: Variadic }
const connect = socket.connect
socket.connect = function (...args) {
  const self = this as net.Socket
  const first = args[0]
  let host: string | undefined
  if (Array.isArray(first)) host = (first[0] as Options | undefined)?.host
  else if (isOptions(first)) host = first.path === undefined ? (first.host ?? 'localhost') : undefined
  else if (isPort(first)) host = typeof args[1] === 'string' ? args[1] : 'localhost'
  if (host !== undefined && !isLoopback(host)) {
    const error = refuse('a connection', host)
    process.nextTick(() => self.destroy(error))
    return self
  }
  return connect.apply(self, args)
}

const resolver = dns as unknown as { lookup: Variadic; promises: { lookup: Variadic } }
const lookup = resolver.lookup
resolver.lookup = function (hostname, ...rest) {
  if (!isLoopback(hostname as Host)) {
    const callback = rest.at(-1)
    const error = refuse('a DNS lookup', hostname as Host)
    if (typeof callback === 'function') process.nextTick(() => (callback as (e: Error) => void)(error))
    return {}
  }
  return lookup.call(this, hostname, ...rest)
}
const lookupPromise = resolver.promises.lookup
resolver.promises.lookup = function (hostname, ...rest) {
  if (!isLoopback(hostname as Host)) return Promise.reject(refuse('a DNS lookup', hostname as Host))
  return lookupPromise.call(this, hostname, ...rest)
}
