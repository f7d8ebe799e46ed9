import type { CountTask } from './tokenizer'

/** Work per `advance` call between two looks at the clock: well under a millisecond. */
const STEP = 1024
/** The longest counting holds the event loop before it lets other work (streams) run, in ms. */
export const COUNT_SLICE_MS = 4

/**
 * Runs count tasks one after the other in slices of at most ~`COUNT_SLICE_MS`, yielding to the
 * event loop (`setImmediate`: timers and sockets run) between slices, so one huge prompt delays
 * other requests' streams by milliseconds, not seconds. Stops as soon as `base` plus the counts
 * passes `limit` — the answer is then already known — and resolves with the total so far (then
 * over `limit`, but not the full count). Each finished task's count goes to `onCounted`.
 */
export async function countInSlices(
  tasks: readonly CountTask[],
  base: number,
  limit: number,
  onCounted: (index: number, count: number) => void = () => {},
): Promise<number> {
  let total = base
  let sliceEnds = performance.now() + COUNT_SLICE_MS
  for (let index = 0; index < tasks.length; index++) {
    const task = tasks[index]!
    for (;;) {
      const done = task.advance(STEP)
      if (total + task.count > limit) return total + task.count
      if (done) break
      if (performance.now() >= sliceEnds) {
        await new Promise<void>((resolve) => setImmediate(resolve))
        sliceEnds = performance.now() + COUNT_SLICE_MS
      }
    }
    total += task.count
    onCounted(index, task.count)
  }
  return total
}
