// A Mortar's garbage collections during a benchmark's jobs, read back from V8's --trace-gc-nvp
// lines in its log (`pause=… gc=s|mc … allocated=… promoted=… new_space_survived=…`): what
// cpu-per-request.ts and stream-ttft.ts print with --gc.

/** Node flags that make a process log its collections as this module reads them. */
export const GC_TRACE_NODE_ARGS: readonly string[] = ['--trace-gc-nvp']

export interface GcTotals {
  scavengePausesMs: number[]
  allocated: number
  survived: number
  fullCollections: number
  fullPauseMs: number
}

/** Adds the collections of a --trace-gc-nvp log's lines. */
export function addGcTrace(totals: GcTotals | undefined, log: string): GcTotals {
  const sum = totals ?? { scavengePausesMs: [], allocated: 0, survived: 0, fullCollections: 0, fullPauseMs: 0 }
  for (const line of log.split('\n')) {
    const kind = / gc=(\w+) /.exec(line)?.[1]
    if (kind === undefined) continue
    const field = (name: string): number => Number(new RegExp(` ${name}=([\\d.]+)`).exec(line)?.[1] ?? 0)
    if (kind === 's') {
      sum.scavengePausesMs.push(field('pause'))
      sum.allocated += field('allocated')
      // Survived and promoted: what a young collection copied (an object promoted on its second is counted twice).
      sum.survived += field('promoted') + field('new_space_survived')
    } else {
      sum.fullCollections++
      sum.fullPauseMs += field('pause')
    }
  }
  return sum
}

/** One line: young collections (count, pauses, what they found alive) and full ones. */
export function gcLine(t: GcTotals): string {
  const scavenges = t.scavengePausesMs.length
  const alive = t.allocated === 0 ? 0 : (100 * t.survived) / t.allocated
  const mean = (ms: number, n: number) => (n === 0 ? '–' : (ms / n).toFixed(1))
  const pauses = [...t.scavengePausesMs].sort((a, b) => a - b)
  const at = (q: number) => (pauses.length === 0 ? '–' : pauses[Math.min(pauses.length - 1, Math.floor(q * pauses.length))]!.toFixed(1))
  const total = pauses.reduce((a, b) => a + b, 0)
  return (
    `${scavenges} scavenges (pause mean ${mean(total, scavenges)}, p50 ${at(0.5)}, p90 ${at(0.9)}, max ${at(1)} ms; ` +
    `${(t.allocated / 1e6).toFixed(0)} MB allocated, ${alive.toFixed(0)}% of it found alive, ${(t.survived / 1e6 / Math.max(1, scavenges)).toFixed(1)} MB each), ` +
    `${t.fullCollections} mark-compacts (mean pause ${mean(t.fullPauseMs, t.fullCollections)} ms)`
  )
}
