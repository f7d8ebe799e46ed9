import { isRecord } from '../../../shared/narrow'

/**
 * Asking a model server how long its context window is. OpenAI's API has no field for it, so each
 * server family is asked where it says so (docs/api-decisions.md#context-window):
 *
 * | server | request | field |
 * |---|---|---|
 * | vLLM, SGLang | `GET <base>/models` | `data[].max_model_len` of the served model |
 * | llama.cpp | `GET <root>/props` | `default_generation_settings.n_ctx` (per slot), else `n_ctx` |
 * | LM Studio | `GET <root>/api/v0/models` | `loaded_context_length`, else `max_context_length` |
 * | Ollama | `GET <root>/api/ps` | `context_length` of the loaded model (what it allocated) |
 * | Ollama | `POST <root>/api/show` | `num_ctx` in `parameters`, else `model_info["<arch>.context_length"]` |
 *
 * `<base>` is the OpenAI base URL (…/v1); `<root>` is that URL without its `/v1`, where the
 * servers' native endpoints are. All probes run at once, each with a short timeout; a server
 * answers only its own, and the first in the table's order that names a window wins.
 */

/** Where a replica is, and which model on it (the name the server knows). */
export interface ProbeTarget {
  /** Names the replica in the reported source. */
  id: string
  baseUrl: URL
  apiKey: string | undefined
  model: string
}

export interface DiscoveredWindow {
  tokens: number
  /** What answered, e.g. `127.0.0.1:8000 GET /v1/models max_model_len`. */
  source: string
}

interface Probe {
  method: 'GET' | 'POST'
  /** Relative to the base URL (`models`) or to the server root (`/props`). */
  path: (target: ProbeTarget) => URL
  body?: (target: ProbeTarget) => unknown
  /** The window this answer names, and the field it came from. */
  read: (answer: unknown, target: ProbeTarget) => { tokens: number; field: string } | undefined
}

const RESPONSE_LIMIT_BYTES = 4 * 1024 * 1024

const underBase = (path: string) => (target: ProbeTarget) => new URL(target.baseUrl.pathname.replace(/\/$/, '') + path, target.baseUrl)
const underRoot = (path: string) => (target: ProbeTarget) => new URL(target.baseUrl.pathname.replace(/\/v1\/?$/, '').replace(/\/$/, '') + path, target.baseUrl)

const PROBES: readonly Probe[] = [
  {
    method: 'GET',
    path: underBase('/models'),
    read: (answer, target) => field(entryFor(answer, target.model, 'data'), 'max_model_len'),
  },
  {
    method: 'GET',
    path: underRoot('/props'),
    read: (answer) =>
      field(objectAt(answer, 'default_generation_settings'), 'n_ctx', 'default_generation_settings.n_ctx') ?? field(answer, 'n_ctx'),
  },
  {
    method: 'GET',
    path: underRoot('/api/v0/models'),
    read: (answer, target) => {
      const entry = entryFor(answer, target.model, 'data')
      return field(entry, 'loaded_context_length') ?? field(entry, 'max_context_length')
    },
  },
  {
    method: 'GET',
    path: underRoot('/api/ps'),
    read: (answer, target) => field(entryFor(answer, target.model, 'models'), 'context_length'),
  },
  {
    method: 'POST',
    path: underRoot('/api/show'),
    // `name` is what Ollama before 0.5 read; later versions take `model` and still accept `name`.
    body: (target) => ({ model: target.model, name: target.model }),
    read: (answer) => {
      const parameters = isRecord(answer) ? answer.parameters : undefined
      const numCtx = typeof parameters === 'string' ? /^\s*num_ctx\s+(\d+)\s*$/m.exec(parameters)?.[1] : undefined
      if (numCtx !== undefined && wholePositive(Number(numCtx))) return { tokens: Number(numCtx), field: 'parameters num_ctx' }
      const info = objectAt(answer, 'model_info')
      const arch = info?.['general.architecture']
      return typeof arch === 'string' ? field(info, `${arch}.context_length`, `model_info["${arch}.context_length"]`) : undefined
    },
  },
]

/**
 * Ask every replica of a deployment; a request may reach any of them, so the smallest window
 * that any names is the one that fits everywhere.
 */
export async function discoverContextWindow(targets: readonly ProbeTarget[], timeoutMs: number): Promise<DiscoveredWindow | undefined> {
  const found = (await Promise.all(targets.map((target) => probeContextWindow(target, timeoutMs)))).filter((w) => w !== undefined)
  return found.reduce<DiscoveredWindow | undefined>((smallest, w) => (smallest === undefined || w.tokens < smallest.tokens ? w : smallest), undefined)
}

/**
 * Ask one replica for its model's context window: every probe in parallel, each bounded by
 * `timeoutMs`. Resolves undefined when nothing answered with a window.
 */
export async function probeContextWindow(target: ProbeTarget, timeoutMs: number): Promise<DiscoveredWindow | undefined> {
  const answers = await Promise.all(PROBES.map((probe) => runProbe(probe, target, timeoutMs)))
  return answers.find((answer) => answer !== undefined)
}

async function runProbe(probe: Probe, target: ProbeTarget, timeoutMs: number): Promise<DiscoveredWindow | undefined> {
  const url = probe.path(target)
  try {
    const body = probe.body?.(target)
    const response = await fetch(url, {
      method: probe.method,
      headers: {
        accept: 'application/json',
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        ...(target.apiKey !== undefined ? { authorization: `Bearer ${target.apiKey}` } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      signal: AbortSignal.timeout(timeoutMs),
    })
    if (!response.ok) {
      await response.body?.cancel()
      return undefined
    }
    const found = probe.read(JSON.parse(await limitedText(response)), target)
    return found === undefined ? undefined : { tokens: found.tokens, source: `${target.id} ${probe.method} ${url.pathname} ${found.field}` }
  } catch {
    return undefined // not this kind of server, not up, too slow, or not JSON: another probe may answer
  }
}

async function limitedText(response: Response): Promise<string> {
  if (response.body === null) return ''
  const reader = response.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { value, done } = await reader.read()
    if (done) break
    size += value.length
    if (size > RESPONSE_LIMIT_BYTES) {
      await reader.cancel()
      throw new Error('answer too large')
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function objectAt(value: unknown, key: string): Record<string, unknown> | undefined {
  const inner = isRecord(value) ? value[key] : undefined
  return isRecord(inner) ? inner : undefined
}

/** The list entry for this model (by `id`, `name` or `model`), or the only entry when there is one. */
function entryFor(answer: unknown, model: string, listKey: string): Record<string, unknown> | undefined {
  const list = isRecord(answer) ? answer[listKey] : undefined
  if (!Array.isArray(list)) return undefined
  const entries = list.filter(isRecord)
  // Ollama lists `llama3.2` as `llama3.2:latest`.
  const names = new Set([model, model.includes(':') ? model : `${model}:latest`])
  const named = entries.find((entry) => [entry.id, entry.name, entry.model].some((name) => typeof name === 'string' && names.has(name)))
  return named ?? (entries.length === 1 ? entries[0] : undefined)
}

function field(record: unknown, key: string, label = key): { tokens: number; field: string } | undefined {
  if (!isRecord(record)) return undefined
  const value = record[key]
  return wholePositive(value) ? { tokens: value, field: label } : undefined
}

function wholePositive(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}
