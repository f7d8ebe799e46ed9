/**
 * Wakes paced streams at their due times with one timer for all of them: a wheel of 1 ms slots
 * and a single ticking timeout while anything is due. At 1,000 concurrent streams (50,000 deltas
 * a second) a timer per delta would make the fake server, not the gateway in front of it, what
 * makes frames late. A stream's deadlines are computed from when it started (piece i is due at
 * start + i × interval), so its schedule does not drift however late one wake-up is.
 *
 * The pacer also keeps how late it woke each stream (whole ms past due), so a benchmark can tell
 * whether the fake server kept up. Its timer never keeps the process alive.
 */

/** Lateness is counted in whole ms; the last slot collects everything from 999 ms on. */
const LATENESS_SLOTS = 1000

export interface PacerLateness {
  /** wake-ups counted */
  wakes: number
  /** whole ms past due at these quantiles */
  p50: number
  p99: number
  p999: number
  /** wake-ups more than 10 ms late */
  over10: number
}

type Wake = () => void

export class Pacer {
  private readonly wheel = new Map<number, Wake[]>()
  private cursor = Math.floor(performance.now())
  private pending = 0
  private ticking = false
  private lateness = new Uint32Array(LATENESS_SLOTS)

  /** Run `wake` at `due` (a performance.now() time) or in the first tick after it. */
  at(due: number, wake: Wake): void {
    const slot = Math.max(Math.ceil(due), this.cursor)
    let bucket = this.wheel.get(slot)
    if (bucket === undefined) this.wheel.set(slot, (bucket = []))
    bucket.push(() => {
      this.lateness[Math.min(LATENESS_SLOTS - 1, Math.max(0, Math.floor(performance.now() - due)))]!++
      wake()
    })
    this.pending++
    if (!this.ticking) {
      this.ticking = true
      this.cursor = Math.min(slot, Math.floor(performance.now()))
      setTimeout(this.tick, 1).unref()
    }
  }

  private readonly tick = (): void => {
    const last = Math.floor(performance.now())
    for (; this.cursor <= last; this.cursor++) {
      const bucket = this.wheel.get(this.cursor)
      if (bucket === undefined) continue
      this.wheel.delete(this.cursor)
      this.pending -= bucket.length
      for (const wake of bucket) wake()
    }
    if (this.pending > 0) setTimeout(this.tick, 1).unref()
    else this.ticking = false
  }

  latenessStats(): PacerLateness {
    let wakes = 0
    for (const count of this.lateness) wakes += count
    const at = (quantile: number): number => {
      let seen = 0
      for (let ms = 0; ms < LATENESS_SLOTS; ms++) if ((seen += this.lateness[ms]!) >= quantile * wakes) return ms
      return LATENESS_SLOTS
    }
    let upTo10 = 0
    for (let ms = 0; ms <= 10; ms++) upTo10 += this.lateness[ms]!
    return { wakes, p50: at(0.5), p99: at(0.99), p999: at(0.999), over10: wakes - upTo10 }
  }

  resetLateness(): void {
    this.lateness = new Uint32Array(LATENESS_SLOTS)
  }
}
