import { hostname } from 'node:os'

/** How an instance joins a cluster: `mortar serve --redis URL [--instance NAME]` or config.json `cluster`. */
export class ClusterOptionsError extends Error {
  override name = 'ClusterOptionsError'
}

/** While Redis is unreachable, how long an instance's last copy of the keys still accepts requests. */
export const DEFAULT_KEY_CACHE_SECONDS = 600

const INSTANCE_PATTERN = /^[A-Za-z0-9._:-]{1,100}$/

/** Checks a Redis URL the way ioredis reads it, so that a typo fails at start-up, not at the first stop. */
export function parseRedisUrl(value: string): URL {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ClusterOptionsError(`--redis takes redis://HOST:PORT[/DB]; got ${JSON.stringify(redactRedisUrl(value))}.`)
  }
  if (url.protocol !== 'redis:' && url.protocol !== 'rediss:') {
    throw new ClusterOptionsError(`--redis takes a redis:// or rediss:// URL; got ${url.protocol}//….`)
  }
  if (url.hostname === '') throw new ClusterOptionsError('--redis needs a host: redis://HOST:PORT[/DB].')
  const db = url.pathname.replace(/^\//, '')
  if (db !== '' && !/^\d{1,2}$/.test(db)) throw new ClusterOptionsError(`--redis: the database is a number (redis://HOST:PORT/0); got /${db}.`)
  return url
}

/** A Redis URL fit to print: any user name or password replaced. */
export function redactRedisUrl(value: string): string {
  return value.replace(/\/\/[^@/]*@/, '//***@')
}

/** The instance name: the one given, else this host's name and the gateway's port (unique on one host). */
export function instanceName(given: string | undefined, port: number): string {
  const name = given ?? `${hostname()}:${port}`
  if (!INSTANCE_PATTERN.test(name)) {
    throw new ClusterOptionsError(`--instance is 1 to 100 letters, digits, dots, dashes, underscores or colons; got ${JSON.stringify(name)}.`)
  }
  return name
}
