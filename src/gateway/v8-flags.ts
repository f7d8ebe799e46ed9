import { setFlagsFromString } from 'node:v8'

/**
 * V8 flags for a process that hosts the gateway (the `mortar` CLI, the desktop app's main
 * process), set before it serves.
 *
 * `--no-allocation-site-pretenuring`: V8 allocates an object directly in old space once most
 * objects from the same allocation site have outlived a young collection. Traffic capture keeps
 * every exchange's record, so sites that build records and per-request objects alike get
 * pretenured; the per-request objects are then born old, die at once, and until the next full
 * collection hold every young object they point to alive through each young collection — most of
 * what a request allocates is then copied and promoted. Without pretenuring, the young
 * collections find only what really lives on.
 */
const GATEWAY_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring']

/** Sets the gateway's V8 flags in this process (Node leaves V8's flags writable after start). */
export function setGatewayV8Flags(): void {
  for (const flag of GATEWAY_V8_FLAGS) setFlagsFromString(flag)
}
