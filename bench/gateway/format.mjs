// Number formatting and the median, shared by the report's sections (report.mjs, report-sweep.mjs).
export const median = (xs) => {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b)
  if (s.length === 0) return undefined
  const m = Math.floor(s.length / 2)
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2
}
export const ms = (v) => (v === undefined || v === null || !Number.isFinite(v) ? '—' : v.toFixed(2))
export const mb = (v) => (v === undefined || v === null ? '—' : v.toFixed(0))
export const us = (v) => (v === undefined || !Number.isFinite(v) ? '—' : String(Math.round(v)))
export const ratio = (a, b) => (a === undefined || b === undefined || !(b > 0.005) ? 'n/a' : `${(a / b).toFixed(2)}×`)
export const mark = (ok) => (ok === undefined ? '—' : ok ? '**met**' : '**not met**')
