// Preloaded (`node --import ./loopback-guard.mjs …`) into the third-party contender (Portkey's
// gateway), whose server would otherwise listen on every interface and whose code knows many
// provider hosts. It makes sure the benchmark stays on this machine:
//   - a server listening without a host (or on 0.0.0.0 / ::) listens on 127.0.0.1 instead;
//   - an outgoing connection or DNS lookup to anything but loopback throws.
import dns from 'node:dns'
import net from 'node:net'

const LOOPBACK_NAMES = new Set(['localhost', '127.0.0.1', '::1', '[::1]'])
const isLoopback = (host) =>
  host === undefined || host === null || host === '' || LOOPBACK_NAMES.has(String(host).toLowerCase()) || /^127\./.test(String(host))

function refuse(what, host) {
  const error = new Error(`loopback-guard: refused ${what} to ${host} (the benchmark stays on loopback)`)
  error.code = 'ECONNREFUSED'
  process.stderr.write(error.message + '\n')
  return error
}

const listen = net.Server.prototype.listen
net.Server.prototype.listen = function (...args) {
  const first = args[0]
  if (first !== null && typeof first === 'object' && !Array.isArray(first)) {
    if (first.path === undefined && (first.host === undefined || first.host === '0.0.0.0' || first.host === '::')) {
      args[0] = { ...first, host: '127.0.0.1' }
    } else if (first.path === undefined && !isLoopback(first.host)) {
      throw refuse('listening', first.host)
    }
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    const host = args[1]
    if (typeof host !== 'string' || host === '0.0.0.0' || host === '::') {
      args.splice(1, typeof host === 'string' ? 1 : 0, '127.0.0.1')
    } else if (!isLoopback(host)) {
      throw refuse('listening', host)
    }
  }
  return listen.apply(this, args)
}

const connect = net.Socket.prototype.connect
net.Socket.prototype.connect = function (...args) {
  const first = args[0]
  let host
  if (Array.isArray(first)) host = first[0]?.host
  else if (first !== null && typeof first === 'object') host = first.path === undefined ? (first.host ?? 'localhost') : undefined
  else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) host = typeof args[1] === 'string' ? args[1] : 'localhost'
  if (host !== undefined && !isLoopback(host)) {
    const error = refuse('a connection', host)
    process.nextTick(() => this.destroy(error))
    return this
  }
  return connect.apply(this, args)
}

const lookup = dns.lookup
dns.lookup = function (hostname, ...rest) {
  if (!isLoopback(hostname)) {
    const callback = rest.at(-1)
    const error = refuse('a DNS lookup', hostname)
    if (typeof callback === 'function') process.nextTick(() => callback(error))
    return {}
  }
  return lookup.call(this, hostname, ...rest)
}
const lookupPromise = dns.promises.lookup
dns.promises.lookup = function (hostname, ...rest) {
  if (!isLoopback(hostname)) return Promise.reject(refuse('a DNS lookup', hostname))
  return lookupPromise.call(this, hostname, ...rest)
}
