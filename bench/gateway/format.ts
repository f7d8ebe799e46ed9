// Number formatting and the median, shared by the report's sections (report.ts, report-sweep.ts).
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
