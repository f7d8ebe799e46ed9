// Number formatting, the median and a sample's summary, shared by the report's sections (report.ts,
// report-sweep.ts), the load generator (load.ts) and the other tools.
import type { Summary } from './types'

type Value = number | undefined | null

export const median = (xs: Value[]): number | undefined => {
  const s = xs.filter((x): x is number => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return undefined
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1]! + s[m]!) / 2
}
export const ms = (v: Value): string => (v === undefined || v === null || !Number.isFinite(v) ? '—' : v.toFixed(2))
export const mb = (v: Value): string => (v === undefined || v === null ? '—' : v.toFixed(0))
export const us = (v: Value): string => (v === undefined || v === null || !Number.isFinite(v) ? '—' : String(Math.round(v)))
export const ratio = (a: Value, b: Value): string => (a === undefined || a === null || b === undefined || b === null || !(b > 0.005) ? 'n/a' : `${(a / b).toFixed(2)}×`)
export const mark = (ok: boolean | undefined): string => (ok === undefined ? '—' : ok ? '**met**' : '**not met**')

/** A sample's count, mean, percentiles (nearest rank) and maximum, to the thousandth. */
export function summary(values: number[]): Summary {
  const n = values.length
  if (n === 0) return { n: 0 } as Summary
  const sorted = Float64Array.from(values).sort()
  const at = (q: number): number => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))]!
  let sum = 0
  for (const v of sorted) sum += v
  const r = (v: number): number => Math.round(v * 1000) / 1000
  return { n, mean: r(sum / n), p50: r(at(0.5)), p90: r(at(0.9)), p99: r(at(0.99)), p999: r(at(0.999)), max: r(sorted[n - 1]!) }
}
