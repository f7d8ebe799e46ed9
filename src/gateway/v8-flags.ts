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
 *
 * `--heap-growing-percent=100`: after a full collection, V8 lets the old generation grow to
 * `live size × factor` before it marks again, the factor picked from how fast the collector and
 * the program ran. On a small heap (a gateway without traffic capture holds ~36 MB) the factor it
 * picks (~1.5) leaves less room than V8 wants to keep free, and it marks again ~100 ms after each
 * full collection although the heap has not grown: one full collection after another, with no
 * young collection between them, at twice the CPU per request of a gateway with capture on. A
 * fixed factor of 2 leaves room equal to what lives. A larger heap (capture on: ~50–100 MB) gets
 * more room than V8 picked for it (1.3–1.6×); its RSS under load is measured in
 * docs/benchmark.md.
 *
 * `--interrupt-budget=16384` (V8's default: 67584): a function is optimized once it has used up its
 * budget — bytecode executed — a few times over. A request's path is hundreds of functions each run
 * once or twice per request, and at the default budget the small ones among them run unoptimized
 * for the first few thousand requests: a fresh gateway answered its first 3,000 requests at up to
 * twice the CPU of later ones. A quarter of the budget has the path optimized within ~1,500
 * requests, at the same cost per request afterwards (docs/benchmark.md).
 */
const GATEWAY_V8_FLAGS: readonly string[] = ['--no-allocation-site-pretenuring', '--heap-growing-percent=100', '--interrupt-budget=16384']

/** Sets the gateway's V8 flags in this process (Node leaves V8's flags writable after start). */
export function setGatewayV8Flags(): void {
  for (const flag of GATEWAY_V8_FLAGS) setFlagsFromString(flag)
}
