import { isRecord } from '../../shared/narrow'

/**
 * JSON as Python's `json.dumps(value, ensure_ascii=False)` writes it, which is what Hugging Face
 * chat templates' `tojson` filter produces: `", "` and `": "` separators, keys in insertion order.
 * Needed to render tools and tool-call arguments the way the model server will.
 */
export function pythonJsonDumps(value: unknown): string {
  if (value === null || value === undefined) return 'null'
  if (typeof value === 'string') return JSON.stringify(value)
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'NaN'
  if (typeof value === 'boolean') return value ? 'true' : 'false'
  if (Array.isArray(value)) return `[${value.map(pythonJsonDumps).join(', ')}]`
  if (isRecord(value)) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined)
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}: ${pythonJsonDumps(v)}`).join(', ')}}`
  }
  return 'null'
}
