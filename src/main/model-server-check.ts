import type { ModelServerCheck } from '../shared/ipc'

const CHECK_TIMEOUT_MS = 5_000

/**
 * Settings' "Test" button for a model server: GET {base}/models, as Mortar's forwarding would
 * reach it. Runs in main, not the page: the page's CSP lets it talk only to the local gateway,
 * and the server's key ($MORTAR_UPSTREAM_API_KEY) must not reach the renderer.
 */
export async function checkModelServer(
  baseUrl: string,
  apiKey: string | undefined = process.env.MORTAR_UPSTREAM_API_KEY,
  fetchImpl: typeof fetch = fetch,
): Promise<ModelServerCheck> {
  const url = `${baseUrl.replace(/\/+$/, '')}/models`
  try {
    const response = await fetchImpl(url, {
      headers: apiKey !== undefined && apiKey !== '' ? { Authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(CHECK_TIMEOUT_MS),
    })
    if (!response.ok) {
      return { ok: false, status: response.status, models: [], message: `GET ${url} answered ${response.status}.` }
    }
    const body = (await response.json().catch(() => null)) as { data?: Array<{ id?: unknown }> } | null
    const models = (body?.data ?? []).map((m) => m.id).filter((id): id is string => typeof id === 'string')
    if (models.length === 0) return { ok: false, status: response.status, models, message: `GET ${url} listed no models.` }
    return { ok: true, status: response.status, models, message: `Reachable; serves ${models.join(', ')}.` }
  } catch (error) {
    const reason = error instanceof Error && error.name === 'TimeoutError' ? `no answer within ${CHECK_TIMEOUT_MS / 1000} s` : error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error)
    return { ok: false, status: null, models: [], message: `Could not reach ${url}: ${reason}.` }
  }
}
