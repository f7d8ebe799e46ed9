import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { KeyStore } from '../gateway/auth/key-store'
import { ClusterOptionsError, parseRedisUrl, redactRedisUrl } from '../gateway/cluster/cluster-options'
import { RedisKeyRecords } from '../gateway/cluster/redis-key-records'
import { RedisLink } from '../gateway/cluster/redis-link'
import { parseConfigFile } from '../gateway/config/config-file'
import { UsageError } from './cli-io'

/** A cluster's keys, opened for one CLI command. */
export interface ClusterKeys {
  store: KeyStore
  redisUrl: string
  close(): void
}

/**
 * The keys of the cluster this home belongs to: `--redis URL`, else config.json's `cluster.redis`;
 * undefined when neither names one (the home's own keys.json). A Redis that does not answer is an
 * error: the CLI must never report a change it could not make.
 */
export async function openClusterKeys(home: string, redisFlag: string | undefined): Promise<ClusterKeys | undefined> {
  const redisUrl = redisFlag ?? configuredRedis(home)
  if (redisUrl === undefined) return undefined
  try {
    parseRedisUrl(redisUrl)
  } catch (error) {
    if (error instanceof ClusterOptionsError) throw new UsageError(error.message)
    throw error
  }
  const link = new RedisLink(redisUrl, () => undefined)
  await link.connect()
  if (!link.connected) {
    link.close()
    throw new Error(`Cannot reach Redis at ${redactRedisUrl(redisUrl)}: the cluster's keys live there, and nothing was changed.`)
  }
  const records = new RedisKeyRecords(link)
  await records.load()
  return {
    store: new KeyStore(records),
    redisUrl,
    close: () => link.close(),
  }
}

function configuredRedis(home: string): string | undefined {
  const path = join(home, 'config.json')
  let text: string | undefined
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  return parseConfigFile(path, text).cluster.redis
}
